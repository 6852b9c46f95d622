package io.shotstash.pipeline;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's cache of authenticated workers, by token hash, so that a poll does not need
 * PostgreSQL to know who is calling. Entries are dropped when a worker re-registers (new token),
 * changes its kinds or is revoked: at once on the node that made the change, before it answers,
 * and on every other node when {@code pipeline.workers.changed} reaches it ({@link #changed}).
 */
public final class WorkerDirectory {
  /** An authenticated worker. */
  public record WorkerRef(String id, String name, List<String> kinds) {
    public WorkerRef {
      kinds = List.copyOf(kinds);
    }
  }

  /** Names this node's directory in the events it publishes. */
  private final String node = UUID.randomUUID().toString();
  private final Map<String, WorkerRef> byTokenHash = new ConcurrentHashMap<>();
  /** When each worker was last forgotten, in forgets counted by {@code generation}; guarded by this. */
  private final Map<String, Long> forgottenAt = new HashMap<>();
  private long generation;

  public WorkerRef get(String tokenHashHex) {
    return byTokenHash.get(tokenHashHex);
  }

  /** Counts the forgets; read it before looking a worker up in PostgreSQL ({@link #put}). */
  public synchronized long generation() {
    return generation;
  }

  /**
   * Caches a worker read from PostgreSQL after {@link #generation()} answered {@code readAt}, unless
   * that worker was forgotten since: the read may predate the change (a rotated-out token read just
   * before the new one was stored), and caching it would keep the old token working.
   */
  public synchronized void put(String tokenHashHex, WorkerRef worker, long readAt) {
    Long forgotten = forgottenAt.get(worker.id());
    if (forgotten == null || forgotten <= readAt) {
      byTokenHash.put(tokenHashHex, worker);
    }
  }

  public synchronized void forget(String workerId) {
    forgottenAt.put(workerId, ++generation);
    byTokenHash.values().removeIf(w -> w.id().equals(workerId));
  }

  /** The {@code pipeline.workers.changed} event for a change made on this node (already forgotten here). */
  public JsonObject changeEvent(String workerId) {
    return new JsonObject().put("workerId", workerId).put("node", node);
  }

  /**
   * A {@code pipeline.workers.changed} event arrived. One this node published is ignored: it forgot
   * the worker before publishing, and its own copy arrives later, by which time the worker's next
   * call may already have put the worker back (read after the change): forgetting it again would
   * only cost that call's successor a PostgreSQL read.
   */
  public void changed(JsonObject event) {
    if (!node.equals(event.getString("node"))) {
      forget(event.getString("workerId"));
    }
  }
}
