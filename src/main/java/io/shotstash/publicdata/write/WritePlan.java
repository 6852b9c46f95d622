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
 * from the state after the change.
 */
public record WritePlan(
    List<RecordChange> changes,
    Function<SqlConnection, Future<?>> privateWork,
    CommitMessage message,
    Function<PublicState, JsonObject> reply) {

  public WritePlan {
    changes = List.copyOf(changes);
    privateWork = privateWork == null ? tx -> Future.succeededFuture() : privateWork;
  }
}
