package io.shotstash.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/**
 * Asks a service on the event bus: one JSON message with an {@code action} header, one JSON reply.
 * The services asked this way (job queue, media library, moderation reads) run on every node, so
 * the request stays on this node: in a cluster it never waits on another node that died or froze.
 * (Writes to public data go to the one git writer through {@code PublicDataClient} instead.)
 */
public final class Requests {
  private static final long TIMEOUT_MS = 30_000;

  private Requests() {}

  public static Future<JsonObject> ask(Vertx vertx, String address, String action, JsonObject body) {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(TIMEOUT_MS).setLocalOnly(true)
        .addHeader(Addresses.ACTION, action);
    return vertx.eventBus().<JsonObject>request(address, body, options).map(m -> m.body());
  }
}
