package io.shotstash.pipeline;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * What this node knows about claimable work per kind, so an idle poll never reaches PostgreSQL:
 * for each kind, the earliest moment a queued job becomes claimable ({@link Long#MAX_VALUE}: none
 * queued), or nothing when unknown (then the poll asks PostgreSQL). PostgreSQL tells every node
 * when a job becomes queued (LISTEN pipeline_queued); each notice bumps the kind's version, so an
 * "empty" answer that raced with a notice is not recorded. Thread-safe.
 */
public final class QueueSignal {
  private final Map<String, Long> claimableAt = new HashMap<>();
  private final Map<String, Long> versions = new HashMap<>();
  private boolean listening;

  /** Whether a claim could find something now (or we do not know). */
  public synchronized boolean mightHaveWork(Collection<String> kinds, long nowMillis) {
    if (!listening) {
      return true;
    }
    for (String k : kinds) {
      Long at = claimableAt.get(k);
      if (at == null || at <= nowMillis) {
        return true;
      }
    }
    return false;
  }

  /** A job of this kind became queued, claimable from {@code runAfterMillis}. */
  public synchronized void queued(String kind, long runAfterMillis) {
    versions.merge(kind, 1L, Long::sum);
    claimableAt.merge(kind, runAfterMillis, Math::min);
  }

  /** The versions of these kinds, taken before asking PostgreSQL. */
  public synchronized Map<String, Long> versions(Collection<String> kinds) {
    Map<String, Long> out = new HashMap<>();
    for (String k : kinds) {
      out.put(k, versions.getOrDefault(k, 0L));
    }
    return out;
  }

  /**
   * Records what PostgreSQL answered (kind → earliest run_after, absent: none queued), for each kind
   * whose version did not move while asking.
   */
  public synchronized void learned(Map<String, Long> versionsBefore, Map<String, Long> earliest) {
    versionsBefore.forEach((kind, version) -> {
      if (versions.getOrDefault(kind, 0L).equals(version)) {
        claimableAt.put(kind, earliest.getOrDefault(kind, Long.MAX_VALUE));
      }
    });
  }

  /** LISTEN is (re)established: start from not knowing anything. */
  public synchronized void listening(boolean on) {
    listening = on;
    claimableAt.clear();
  }
}
