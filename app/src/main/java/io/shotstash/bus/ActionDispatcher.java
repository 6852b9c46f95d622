package io.shotstash.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service address, many operations: routes each message to the handler its {@code action}
 * header names and answers with the handler's JSON, or fails the reply with the refusal (its HTTP
 * status and JSON body) — an unexpected failure becomes a 500 whose trace id is logged here.
 */
public final class ActionDispatcher {
  private static final Logger log = LoggerFactory.getLogger(ActionDispatcher.class);

  private final String address;
  private final Map<String, Function<JsonObject, Future<JsonObject>>> actions = new HashMap<>();

  public ActionDispatcher(String address) {
    this.address = address;
  }

  public ActionDispatcher on(String action, Function<JsonObject, Future<JsonObject>> handler) {
    if (actions.put(action, handler) != null) {
      throw new IllegalStateException(address + " has two handlers for " + action);
    }
    return this;
  }

  /** Starts consuming; the future completes once the consumer is registered (cluster-wide too). */
  public Future<Void> register(Vertx vertx) {
    return vertx.eventBus().<JsonObject>consumer(address, this::dispatch).completion();
  }

  /**
   * Also consumes on a node-local address (same actions, same handlers): for callers that must reach
   * this very instance, never another one.
   */
  public Future<Void> registerLocal(Vertx vertx, String localAddress) {
    return vertx.eventBus().<JsonObject>localConsumer(localAddress, this::dispatch).completion();
  }

  private void dispatch(Message<JsonObject> message) {
    String action = message.headers().get(Addresses.ACTION);
    Function<JsonObject, Future<JsonObject>> handler = action == null ? null : actions.get(action);
    Future<JsonObject> result;
    try {
      result = handler == null
          ? Future.failedFuture(new IllegalArgumentException(address + " has no action " + action))
          : handler.apply(message.body());
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        message.reply(ar.result());
        return;
      }
      ApiError error = ApiError.from(ar.cause());
      if (error == null) {
        error = Unavailable.of(ar.cause()).orElse(null);
        if (error != null) {
          log.warn("{} {} refused while {}: {}", address, action, error.code(),
              String.valueOf(ar.cause().getMessage()));
        }
      }
      if (error == null) {
        String traceId = UUID.randomUUID().toString();
        log.error("{} {} failed [traceId={}]", address, action, traceId, ar.cause());
        message.fail(500, ApiError.internal().toJson().put("traceId", traceId).encode());
      } else {
        message.fail(error.status(), error.toJson().encode());
      }
    });
  }
}
