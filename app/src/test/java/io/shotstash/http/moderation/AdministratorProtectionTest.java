package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.conflict;
import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.list;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Staff cannot take away the administrators: a person votes spam only on accounts below their own
 * level (409 protected_account), and no spam vote may hide the last active administrator (409
 * last_administrator), who would otherwise be locked out of the admin routes with no one left to
 * undo it. A refused vote commits nothing.
 */
class AdministratorProtectionTest extends WithModerationApp {
  static String staff;

  @BeforeAll
  static void members() {
    staff = h.member(admin, "stf", "staff");
    String user = h.member(admin, "usr", "user");
    h.nudger(user, "usr");
  }

  @Test
  void theOnlyAdministratorCannotBeVotedOutAndNeitherCanAnyPeerOrHigher() {
    ObjectId before = h.head();
    conflict(h.vote(staff, "ada", "spam"), "last_administrator");
    assertThat(h.head()).as("a refused vote commits nothing").isEqualTo(before);
    assertThat(h.person("ada").isDeactivated()).isFalse();
    assertThat(h.evaluation("ada", "human-stf")).isNull();
    // she keeps the admin routes
    list(h.get("/api/admin/members", admin));
    data(h.post("/api/people", admin, new JsonObject().put("slug", "ada2").put("fullName", "Ada Two")
        .put("email", "ada2@example.org").put("password", ModerationHarness.PASSWORD)
        .put("accountLevel", "administrator")),
        201);
    String ada2 = app.login("ada2", ModerationHarness.PASSWORD);

    // with a second administrator, a spam vote on either is still above staff, and a peer's for the other
    ObjectId withTwo = h.head();
    conflict(h.vote(staff, "ada", "spam"), "protected_account");
    conflict(h.vote(staff, "ada2", "spam"), "protected_account");
    conflict(h.vote(ada2, "ada", "spam"), "protected_account");
    conflict(h.vote(admin, "ada2", "spam"), "protected_account");
    assertThat(h.head()).isEqualTo(withTwo);
    assertThat(h.person("ada").isDeactivated()).isFalse();
    assertThat(h.person("ada2").isDeactivated()).isFalse();

    // a legit vote hides nobody, so it is not refused
    data(h.vote(staff, "ada", "legit"));
    assertThat(h.person("ada").isDeactivated()).isFalse();
  }

  @Test
  void staffVoteSpamOnlyOnAccountsBelowTheirOwnLevel() {
    h.createPerson(admin, "stf-peer", "staff");
    h.createPerson(admin, "stf-low", "staff");
    h.createPerson(admin, "edi", "editor");
    ObjectId before = h.head();
    conflict(h.vote(staff, "stf-peer", "spam"), "protected_account");
    assertThat(h.head()).isEqualTo(before);
    assertThat(h.person("stf-peer").isDeactivated()).isFalse();

    // below the voter: an editor for staff, staff for an administrator
    assertThat(data(h.vote(staff, "edi", "spam")).getJsonObject("person").getString("deactivatedBy"))
        .isEqualTo("moderation");
    assertThat(data(h.vote(admin, "stf-low", "spam")).getJsonObject("person").getString("deactivatedBy"))
        .isEqualTo("moderation");
    data(h.vote(admin, "stf-low", "legit"));
    assertThat(h.person("stf-low").isDeactivated()).isFalse();
  }
}
