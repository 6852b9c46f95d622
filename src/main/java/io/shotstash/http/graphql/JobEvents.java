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
 * One consumer of {@code pipeline.job.updated} for all the subscriptions of an HTTP verticle, handing
 * each event to the listeners of its job. (One consumer per subscription would cost a cluster-wide
 * registration for every subscriber.) Listeners are called on this consumer's context and must hop
 * to their own.
 */
final class JobEvents {
  private final Map<String, Set<Consumer<JsonObject>>> listeners = new ConcurrentHashMap<>();
  private final MessageConsumer<JsonObject> consumer;

  JobEvents(Vertx vertx) {
    consumer = vertx.eventBus().consumer(Addresses.PIPELINE_JOB_UPDATED, m -> dispatch(m.body()));
  }

  /** Completes once events reach this node. */
  Future<Void> ready() {
    return consumer.completion();
  }

  /** Calls {@code listener} with every event about the job until the returned handle runs. */
  Runnable listen(String jobId, Consumer<JsonObject> listener) {
    String key = jobId.toLowerCase(Locale.ROOT);
    listeners.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(listener);
    return () -> listeners.computeIfPresent(key, (k, set) -> {
      set.remove(listener);
      return set.isEmpty() ? null : set;
    });
  }

  private void dispatch(JsonObject event) {
    String id = event == null ? null : event.getString("id");
    Set<Consumer<JsonObject>> set = id == null ? null : listeners.get(id.toLowerCase(Locale.ROOT));
    if (set != null) {
      set.forEach(l -> l.accept(event));
    }
  }
}
