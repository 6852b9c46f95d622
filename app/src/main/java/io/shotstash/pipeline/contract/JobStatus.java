package io.shotstash.pipeline.contract;

import java.util.Locale;

/** Job statuses (docs/worker-contract.md → Job states). {@code state} adds waiting_for_worker and is never stored. */
public enum JobStatus {
  QUEUED,
  CLAIMED,
  RUNNING,
  DONE,
  FAILED,
  CANCELLED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isFinal() {
    return this == DONE || this == FAILED || this == CANCELLED;
  }

  public static JobStatus parse(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }

  /** The derived state: waiting_for_worker when queued and no live worker serves the kind. */
  public String state(boolean kindLive) {
    return this == QUEUED && !kindLive ? "waiting_for_worker" : wire();
  }
}
