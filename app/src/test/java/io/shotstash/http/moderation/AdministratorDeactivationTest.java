package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.conflict;
import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.list;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * Deactivating someone hides them as a spam vote does, so it follows the same protection: staff
 * deactivate only accounts below their own level (409 protected_account), and nobody, the
 * administrator themselves included, may hide the last active administrator (409
 * last_administrator). A refused deactivation commits nothing; the administrator keeps the admin
 * routes. One test, so the number of administrators is known at every step.
 */
class AdministratorDeactivationTest extends WithModerationApp {

  private static HttpResponse<Buffer> deactivate(String token, String slug) {
    return h.post("/api/people/" + slug + "/deactivate", token, new JsonObject());
  }

  private static HttpResponse<Buffer> reactivate(String token, String slug) {
    return h.post("/api/people/" + slug + "/reactivate", token, new JsonObject());
  }

  private static String deactivatedBy(HttpResponse<Buffer> r) {
    return data(r).getString("deactivatedBy");
  }

  @Test
  void staffCannotHideAnAdministratorOrAPeerAndNobodyHidesTheLastAdministrator() {
    String staff = h.member(admin, "stf", "staff");
    h.createPerson(admin, "stf-peer", "staff");
    h.createPerson(admin, "edi", "editor");

    ObjectId before = h.head();
    // the only administrator: the site-wide rule answers whoever asks, herself included
    conflict(deactivate(staff, "ada"), "last_administrator");
    conflict(deactivate(admin, "ada"), "last_administrator");
    // a peer of the caller: protected
    conflict(deactivate(staff, "stf-peer"), "protected_account");
    assertThat(h.head()).as("a refused deactivation commits nothing").isEqualTo(before);
    assertThat(h.person("ada").isDeactivated()).isFalse();
    assertThat(h.person("stf-peer").isDeactivated()).isFalse();
    list(h.get("/api/admin/members", admin));

    // below the caller: hidden, as before
    assertThat(deactivatedBy(deactivate(staff, "edi"))).isEqualTo("staff");
    assertThat(deactivatedBy(deactivate(admin, "stf-peer"))).isEqualTo("staff");
    // oneself: allowed below the last administrator
    assertThat(deactivatedBy(deactivate(staff, "stf"))).isEqualTo("self");
    data(reactivate(staff, "stf"));

    // with a second administrator, staff still cannot hide either, nor can one administrator the other
    String ada2 = h.member(admin, "ada2", "administrator");
    ObjectId withTwo = h.head();
    conflict(deactivate(staff, "ada"), "protected_account");
    conflict(deactivate(staff, "ada2"), "protected_account");
    conflict(deactivate(ada2, "ada"), "protected_account");
    assertThat(h.head()).isEqualTo(withTwo);
    // but either may step down; then the other is the last one
    assertThat(deactivatedBy(deactivate(ada2, "ada2"))).isEqualTo("self");
    conflict(deactivate(admin, "ada"), "last_administrator");
    data(reactivate(ada2, "ada2"));
    assertThat(h.person("ada2").isDeactivated()).isFalse();
  }
}
