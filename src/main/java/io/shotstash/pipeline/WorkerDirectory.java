package io.shotstash.pipeline;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's cache of authenticated workers, by token hash, so that a poll does not need
 * PostgreSQL to know who is calling. Entries are dropped when a worker re-registers (new token),
 * changes its kinds or is revoked, on every node ({@code pipeline.workers.changed}).
 */
public final class WorkerDirectory {
  /** An authenticated worker. */
  public record WorkerRef(String id, String name, List<String> kinds) {
    public WorkerRef {
      kinds = List.copyOf(kinds);
    }
  }

  private final Map<String, WorkerRef> byTokenHash = new ConcurrentHashMap<>();

  public WorkerRef get(String tokenHashHex) {
    return byTokenHash.get(tokenHashHex);
  }

  public void put(String tokenHashHex, WorkerRef worker) {
    byTokenHash.put(tokenHashHex, worker);
  }

  public void forget(String workerId) {
    byTokenHash.values().removeIf(w -> w.id().equals(workerId));
  }
}
