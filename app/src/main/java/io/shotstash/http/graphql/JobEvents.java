package io.shotstash.http.graphql;

import io.shotstash.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One consumer of {@code pipeline.job.updated} for all the job subscriptions of this node, handing
 * each event to the listeners of its job. (One consumer per subscription would cost a cluster-wide
 * registration for every subscriber.) Listeners are called on this consumer's context and must hop
 * to their own.
 *
 * <p>On a single node the consumer exists only while someone listens: the queue publishes an event
 * at every claim, output and completion, and a consumer nobody needs would be woken on its own event
 * loop for each of them. A local registration takes effect at once, so a subscription misses
 * nothing. In a cluster it stays registered from the start: a new registration reaches the other
 * nodes some milliseconds later, and an event published there meanwhile would be lost to a
 * subscription that has already read the job's state.
 */
final class JobEvents {
  private final Vertx vertx;
  private final Map<String, Set<Consumer<JsonObject>>> listeners = new ConcurrentHashMap<>();
  /** Registered while {@link #listening} is above zero (always, in a cluster); guarded by this. */
  private MessageConsumer<JsonObject> consumer;
  private int listening;

  JobEvents(Vertx vertx) {
    this.vertx = vertx;
    if (vertx.isClustered()) {
      listening = 1; // never drops to zero: the consumer stays
      consumer = register();
    }
  }

  private MessageConsumer<JsonObject> register() {
    return vertx.eventBus().consumer(Addresses.PIPELINE_JOB_UPDATED, m -> dispatch(m.body()));
  }

  /**
   * Calls {@code listener} with every event about the job until the returned handle runs. Events
   * reach it once {@link #ready()} completes.
   */
  Runnable listen(String jobId, Consumer<JsonObject> listener) {
    String key = jobId.toLowerCase(Locale.ROOT);
    synchronized (this) {
      listeners.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(listener);
      if (listening++ == 0) {
        consumer = register();
      }
    }
    boolean[] done = {false};
    return () -> {
      synchronized (this) {
        if (done[0]) {
          return;
        }
        done[0] = true;
        listeners.computeIfPresent(key, (k, set) -> {
          set.remove(listener);
          return set.isEmpty() ? null : set;
        });
        if (--listening == 0) {
          consumer.unregister();
          consumer = null;
        }
      }
    };
  }

  /** Completes once events reach this node (call it after {@link #listen}). */
  synchronized Future<Void> ready() {
    return consumer == null ? Future.succeededFuture() : consumer.completion();
  }

  private void dispatch(JsonObject event) {
    String id = event == null ? null : event.getString("id");
    Set<Consumer<JsonObject>> set = id == null ? null : listeners.get(id.toLowerCase(Locale.ROOT));
    if (set != null) {
      set.forEach(l -> l.accept(event));
    }
  }
}
