package io.shotstash.worker;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Waits that can be cut short: {@link #wakeAll()} ends every pending wait at once and every later
 * one immediately, so a stopping worker or a dropped job never sits out a 30 s backoff. Used on one
 * context only.
 */
final class Naps {
  private final Vertx vertx;
  private final Map<Long, Promise<Void>> pending = new HashMap<>();
  private boolean awake;

  Naps(Vertx vertx) {
    this.vertx = vertx;
  }

  Future<Void> nap(Duration d) {
    if (awake) {
      return Future.succeededFuture();
    }
    Promise<Void> p = Promise.promise();
    long id = vertx.setTimer(Math.max(1, d.toMillis()), t -> {
      pending.remove(t);
      p.tryComplete();
    });
    pending.put(id, p);
    return p.future();
  }

  void wakeAll() {
    awake = true;
    pending.forEach((id, p) -> {
      vertx.cancelTimer(id);
      p.tryComplete();
    });
    pending.clear();
  }
}
