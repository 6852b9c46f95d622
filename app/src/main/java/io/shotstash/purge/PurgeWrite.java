package io.shotstash.purge;

import io.shotstash.auth.Ids;
import io.shotstash.media.Storage;
import io.shotstash.people.PrivateSql;
import io.shotstash.metrics.DomainMetrics;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The write every purger shares (the staff purge in community, the agent and the scheduled purge in
 * moderation): the cascade of {@link PurgePlan}, the private rows, and for a spam purge the
 * spam-purges record. One commit and one transaction, whoever asked.
 */
public final class PurgeWrite {
  /** Every purge commits under this action, whichever command asked for it. */
  public static final String ACTION = "person.purge";

  private PurgeWrite() {}

  /**
   * The purge of {@code person}: for a spam purge ({@code by} not null) the spam-purges record names
   * {@code by}; {@code extra} records (an agent's vote) join the same commit.
   */
  public static WritePlan plan(WriteContext ctx, WriteCommand cmd, Person person, String by, String grantId,
      String reason, List<String> flags, List<SpamPurge.Evidence> evidence, List<RecordChange> extra) {
    PublicState state = ctx.state();
    PurgePlan plan = PurgePlan.of(state, person);
    List<RecordChange> changes = new ArrayList<>(plan.deletes());
    changes.addAll(extra);
    SpamPurge record = null;
    if (by != null) {
      record = new SpamPurge(Ids.uuid7(), person.id(), person.slug(), person.fullName(), person.githubUserId(),
          person.githubLogin(), by, grantId, reason, flags, evidence, state.commit(), ctx.now(), true, null, null);
      changes.add(RecordChange.put(Sheet.SPAM_PURGES, RecordKeys.spamPurge(record), record));
    }
    CommitMessage.Builder msg = Attribution.message(cmd, ACTION, "person", person.id(), person.slug()).body(reason);
    Attribution.actorTrailers(msg, cmd.actor());
    if (record != null) {
      msg.trailer("Purge-Id", record.id());
    }
    for (SpamPurge.Evidence e : evidence) {
      msg.trailer("Evidence", e.path() + (e.field() == null ? "" : "#" + e.field()));
    }
    SpamPurge purgeRecord = record;
    JsonObject deleted = new JsonObject()
        .put("projects", new JsonArray(plan.projectsTaken().stream()
            .map(p -> new JsonObject().put("slug", p.slug()).put("title", p.title())).toList()))
        .put("memberships", plan.memberships()).put("updates", plan.updates()).put("buzz", plan.buzz())
        .put("helpWantedRoles", plan.helpWantedRoles()).put("rsvps", 0);
    return new WritePlan(changes, tx -> deletePrivate(tx, person.id()), msg.build(), s -> new JsonObject()
        .put("purge", purgeRecord == null ? null : SpamPurgeView.json(purgeRecord))
        .put("deleted", deleted))
        // the person's attachments go with them
        .orphaning(person.avatarKey() == null ? List.of() : List.of(Storage.avatarKey(person.avatarKey())))
        .whenCommitted(() -> DomainMetrics.purge(DomainMetrics.actorKind(cmd.actor())));
  }

  /** Private rows of a purged person: profile, password, sessions (ended at once) and agent grants. */
  static Future<?> deletePrivate(SqlConnection tx, String personId) {
    Tuple id = Tuple.of(UUID.fromString(personId));
    return tx.preparedQuery(PrivateSql.DELETE_PROFILE).execute(id)
        .compose(r -> tx.preparedQuery(PrivateSql.DELETE_PASSWORD).execute(id))
        .compose(r -> tx.preparedQuery(PrivateSql.DELETE_SESSIONS).execute(id))
        .compose(r -> tx.preparedQuery(PrivateSql.DELETE_GRANTS).execute(id));
  }
}
