package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.PrivateSql;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WritePlan;
import io.shotstash.purge.PurgeWrite;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The write of POST /api/admin/members/:slug/purge by an agent: reads the one private fact the rules
 * need, asks {@link AgentPurgeRules}, and plans the purge (the cascade, the agent's vote, the
 * spam-purges record) in one commit. A dry run runs every check and writes nothing.
 */
final class AgentPurge {
  private AgentPurge() {}

  static Future<WritePlan> plan(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Actor.Agent agent = (Actor.Agent) cmd.actor();
    JsonObject p = cmd.params();
    Person target = state.personBySlug(p.getString("slug")).orElse(null);
    if (target == null) {
      return ModerationWrites.refuse(ApiError.notFound());
    }
    Optional<String> notAMember = ModerationTarget.problem(agent, target);
    if (notAMember.isPresent()) {
      return ModerationWrites.refuse(ApiError.validation("slug", notAMember.get()));
    }
    List<Evidence> evidence = new ArrayList<>();
    JsonArray items = p.getJsonArray("evidence", new JsonArray());
    for (int i = 0; i < items.size(); i++) {
      evidence.add(Evidence.parse(items.getJsonObject(i))); // the route sent it well formed
    }
    return ctx.tx().preparedQuery(PrivateSql.LAST_SLACK_SIGN_IN).execute(Tuple.of(UUID.fromString(target.id())))
        .compose(rows -> {
          boolean slack = rows.size() > 0 && rows.iterator().next().getValue(0) != null;
          Optional<Refusal> refused = AgentPurgeRules.check(state, agent, target,
              new AgentPurgeRules.Facts(evidence, slack), ctx.now());
          if (refused.isPresent()) {
            return ModerationWrites.refuse(refused.get().error());
          }
          return Future.succeededFuture(purge(ctx, cmd, agent, target,
              evidence.stream().map(e -> e.toRecord(target)).toList()));
        });
  }

  private static WritePlan purge(WriteContext ctx, WriteCommand cmd, Actor.Agent agent, Person target,
      List<SpamPurge.Evidence> evidence) {
    JsonObject p = cmd.params();
    List<String> flags = p.getJsonArray("flags", new JsonArray()).stream().map(Object::toString).toList();
    String reason = p.getString("reason");
    List<String> voteFlags = new ArrayList<>(List.of("agent", "purged"));
    voteFlags.addAll(flags);
    PersonEvaluation vote =
        new PersonEvaluation(target.slug(), "agent-" + agent.slug(), "spam", reason, voteFlags, null,
            ctx.now());
    WritePlan full = PurgeWrite.plan(ctx, cmd, target, "agent-" + agent.slug(), agent.grantId(), reason, flags,
        evidence, List.of(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote)));
    if (p.getBoolean("dryRun", false)) {
      return WritePlan.noChange(s -> full.reply().apply(s).put("dryRun", true));
    }
    return new WritePlan(full.changes(), full.privateWork(), full.message(),
        s -> full.reply().apply(s).put("dryRun", false),
        full.orphanedBlobs(), full.committed());
  }
}
