package io.shotstash.publicdata.write;

import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlConnection;
import java.util.List;
import java.util.function.Function;

/**
 * What an accepted command does: the public records it changes (one commit; none when empty), the
 * private changes made in the same PostgreSQL transaction, the commit message, and the reply built
 * from the state after the change; and the stored blobs (an avatar) that no record owns once the
 * change is committed, which the writer then deletes; and what to count once the commit is in
 * ({@code committed}: the moderation metrics), never for a refused or rolled-back command.
 */
public record WritePlan(
    List<RecordChange> changes,
    Function<SqlConnection, Future<?>> privateWork,
    CommitMessage message,
    Function<PublicState, JsonObject> reply,
    List<String> orphanedBlobs,
    Runnable committed) {

  public WritePlan {
    changes = List.copyOf(changes);
    privateWork = privateWork == null ? tx -> Future.succeededFuture() : privateWork;
    orphanedBlobs = orphanedBlobs == null ? List.of() : List.copyOf(orphanedBlobs);
    committed = committed == null ? () -> {} : committed;
  }

  public WritePlan(List<RecordChange> changes, Function<SqlConnection, Future<?>> privateWork, CommitMessage message,
      Function<PublicState, JsonObject> reply) {
    this(changes, privateWork, message, reply, List.of(), null);
  }

  /**
   * A command accepted with nothing to change (a vote already cast, a member already hidden): no
   * commit, no private work, only the reply.
   */
  public static WritePlan noChange(Function<PublicState, JsonObject> reply) {
    return new WritePlan(List.of(), null, null, reply);
  }

  /** This plan, also deleting {@code keys} from storage once committed. */
  public WritePlan orphaning(List<String> keys) {
    return new WritePlan(changes, privateWork, message, reply, keys, committed);
  }

  /** This plan, also running {@code count} once its commit is in (a metric; it must not fail or block). */
  public WritePlan whenCommitted(Runnable count) {
    return new WritePlan(changes, privateWork, message, reply, orphanedBlobs, count);
  }
}
