package io.shotstash.people;

import static io.shotstash.bus.Json.iso;

import io.shotstash.publicdata.records.Person;
import io.vertx.core.json.JsonObject;

/** The JSON a person is shown as. Staff see the private and moderation fields; others do not. */
public final class PersonView {
  private PersonView() {}

  public static JsonObject publicJson(Person p) {
    return new JsonObject()
        .put("id", p.id())
        .put("slug", p.slug())
        .put("fullName", p.fullName())
        .put("bio", p.bio())
        .put("avatarUrl", p.avatarKey() == null ? null : "/media/avatars/" + p.avatarKey())
        .put("accountLevel", p.accountLevel())
        .put("agent", p.isAgentAccount())
        .put("githubLogin", p.githubLogin())
        .put("createdAt", iso(p.createdAt()))
        .put("updatedAt", iso(p.updatedAt()));
  }

  /** The staff view: adds deactivation and, when given, the email from the private profile. */
  public static JsonObject staffJson(Person p, String email) {
    return publicJson(p)
        .put("legacyId", p.legacyId())
        .put("email", email)
        .put("deletedAt", iso(p.deletedAt()))
        .put("deactivatedBy", p.deactivatedBy());
  }

  /** The signed-in person's own view of themselves. */
  public static JsonObject selfJson(Person p, String email) {
    return staffJson(p, email);
  }
}
