package io.shotstash.purge;

import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The JSON of a spam-purges record. */
public final class SpamPurgeView {
  private SpamPurgeView() {}

  public static JsonObject json(SpamPurge p) {
    JsonArray evidence = new JsonArray();
    for (SpamPurge.Evidence e : p.evidence()) {
      evidence.add(new JsonObject().put("record", e.record()).put("project", e.project()).put("number", e.number())
          .put("slug", e.slug()).put("roleId", e.roleId()).put("field", e.field()).put("path", e.path()));
    }
    return new JsonObject().put("id", p.id()).put("personId", p.personId()).put("slug", p.slug())
        .put("fullName", p.fullName()).put("githubUserId", p.githubUserId()).put("githubLogin", p.githubLogin())
        .put("by", p.by()).put("grantId", p.grantId()).put("reason", p.reason()).put("flags", new JsonArray(p.flags()))
        .put("evidence", evidence).put("beforeCommit", p.beforeCommit())
        .put("purgedAt", p.purgedAt() == null ? null : p.purgedAt().toString()).put("blocksSignIn", p.blocksSignIn())
        .put("unblockedAt", p.unblockedAt() == null ? null : p.unblockedAt().toString())
        .put("unblockedBySlug", p.unblockedBySlug());
  }
}
