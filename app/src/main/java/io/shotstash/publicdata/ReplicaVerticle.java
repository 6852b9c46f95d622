package io.shotstash.publicdata;

import io.shotstash.bus.Addresses;
import io.shotstash.publicdata.write.BranchFence;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's {@link PublicStateHolder} in step with the git writer. Each
 * {@code publicdata.changed} event names its parent: when the replica is at that parent it applies
 * the event's changes; when it is not (it missed an event, or just joined) it catches up from the
 * repository, reading only the paths that changed; it also catches up once at start and every few
 * seconds when the data has moved without an event reaching it. What it catches up to is the head
 * the branch fence records in PostgreSQL (docs/public-data.md → The branch fence), not the ref file:
 * the ref may lag the fence for a moment, or be moved by a writer that woke from a freeze, and the
 * writer puts it right. The writer's own node is updated by the writer itself, so events from this
 * node are skipped.
 */
public final class ReplicaVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(ReplicaVerticle.class);
  /**
   * How often the replica also compares itself with the repository (one ref read when in step), so
   * that a node that missed the last events (cut off from the cluster for a while) converges without
   * waiting for the next commit.
   */
  private static final long SYNC_MS = 5_000;

  private final PublicStateHolder holder;
  private final PublicStateLoader loader;
  private final TomlCodec codec;
  private final String nodeId;
  private final SqlClient fenceClient;
  private final String branch;
  private boolean syncing;

  /** A replica that follows the branch fence of {@code branch}, read through {@code fenceClient}. */
  public ReplicaVerticle(PublicStateHolder holder, PublicStateLoader loader, TomlCodec codec, String nodeId,
      SqlClient fenceClient, String branch) {
    this.holder = holder;
    this.loader = loader;
    this.codec = codec;
    this.nodeId = nodeId;
    this.fenceClient = Objects.requireNonNull(fenceClient, "fenceClient");
    this.branch = Objects.requireNonNull(branch, "branch");
  }

  /** Listens, then catches up once: a commit made between loading the state and listening has no event left. */
  @Override
  public Future<?> start() {
    vertx.setPeriodic(SYNC_MS, id -> {
      if (!syncing) {
        syncing = true;
        catchUp().onComplete(ar -> syncing = false);
      }
    });
    return vertx.eventBus().<JsonObject>consumer(Addresses.PUBLICDATA_CHANGED, this::onChanged).completion()
        .compose(v -> catchUp());
  }

  private void onChanged(Message<JsonObject> message) {
    JsonObject event = message.body();
    if (nodeId.equals(event.getString("node"))) {
      return;
    }
    PublicState state = holder.current();
    String commit = event.getString("commit");
    if (commit.equals(state.commit())) {
      return;
    }
    if (Objects.equals(event.getString("parent"), state.commit())) {
      holder.set(state.apply(commit, decode(event.getJsonArray("changes"))));
      return;
    }
    catchUp();
  }

  /**
   * Reads what this replica missed from the repository, up to the fence's head (blocking, off the
   * event loop, in order). Before any writer recorded a head, up to the branch's.
   */
  public Future<PublicState> catchUp() {
    return BranchFence.read(fenceClient, branch)
        .onFailure(err -> log.warn("the public state replica could not read the recorded head: {}",
            String.valueOf(err.getMessage())))
        .compose(head -> vertx.executeBlocking(() -> {
          PublicState state;
          PublicState next;
          do { // an event applied meanwhile is newer than what was read: read again from there
            state = holder.current();
            next = head == null ? loader.catchUp(state) : loader.catchUpTo(state, head);
          } while (!holder.compareAndSet(state, next));
          return next;
        }).onFailure(err -> log.error("the public state replica could not catch up", err)));
  }

  private List<RecordChange> decode(JsonArray changes) {
    List<RecordChange> out = new ArrayList<>(changes.size());
    for (int i = 0; i < changes.size(); i++) {
      JsonObject c = changes.getJsonObject(i);
      Sheet sheet = Sheet.byName(c.getString("sheet"));
      String content = c.getString("content");
      out.add(content == null ? RecordChange.delete(sheet, c.getString("key"))
          : RecordChange.put(sheet, c.getString("key"), codec.decode(sheet, content.getBytes(StandardCharsets.UTF_8))));
    }
    return out;
  }
}
