package io.shotstash.moderation;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The JSON of votes as the moderation API shows them. */
public final class ModerationViews {
  private ModerationViews() {}

  static JsonObject voter(PublicState state, String slug) {
    Person p = state.personBySlug(slug).orElse(null);
    return new JsonObject().put("slug", slug).put("fullName", p == null ? null : p.fullName());
  }

  /** One vote in the detail's votes list: kind human or agent from the evaluator prefix. */
  public static JsonObject vote(PublicState state, PersonEvaluation e) {
    return new JsonObject().put("kind", e.isAgent() ? "agent" : "human").put("verdict", e.verdict())
        .put("reasoning", e.reasoning()).put("flags", new JsonArray(e.flags()))
        .put("voter", voter(state, e.voterSlug()))
        .put("evaluatedAt", e.evaluatedAt() == null ? null : e.evaluatedAt().toString());
  }

  /** latestVote on a roster row: a human's vote. */
  public static JsonObject latestVote(PublicState state, PersonEvaluation e) {
    return new JsonObject().put("verdict", e.verdict()).put("voter", voter(state, e.voterSlug()))
        .put("evaluatedAt", e.evaluatedAt() == null ? null : e.evaluatedAt().toString());
  }

  /** stagedVote: an agent's vote while no human has voted; counts = the agent still holds an active grant. */
  public static JsonObject stagedVote(PublicState state, PersonEvaluation e, boolean counts) {
    return new JsonObject().put("verdict", e.verdict()).put("agent", voter(state, e.voterSlug()))
        .put("reasoning", e.reasoning())
        .put("flags", new JsonArray(e.flags().stream().filter(f -> !"agent".equals(f)).toList()))
        .put("evaluatedAt", e.evaluatedAt() == null ? null : e.evaluatedAt().toString()).put("counts", counts);
  }
}
