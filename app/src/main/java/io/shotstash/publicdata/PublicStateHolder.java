package io.shotstash.publicdata;

import java.util.concurrent.atomic.AtomicReference;

/**
 * This node's replica of the public state: the latest snapshot. Readers take {@link #current()}
 * and keep that snapshot for the whole request; only the git writer (on its node) and the replica
 * verticle replace it.
 */
public final class PublicStateHolder {
  private final AtomicReference<PublicState> state;

  public PublicStateHolder(PublicState initial) {
    this.state = new AtomicReference<>(initial);
  }

  public PublicState current() {
    return state.get();
  }

  public void set(PublicState next) {
    state.set(next);
  }

  /** Replaces the snapshot only if it is still {@code expected} (a catch-up must not undo a newer change). */
  public boolean compareAndSet(PublicState expected, PublicState next) {
    return state.compareAndSet(expected, next);
  }
}
