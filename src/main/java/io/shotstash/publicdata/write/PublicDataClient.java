package io.shotstash.publicdata.write;

import io.shotstash.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/** Sends write commands to the git writer, wherever in the cluster it runs. */
public final class PublicDataClient {
  private static final long TIMEOUT_MS = 60_000;
  private final Vertx vertx;

  public PublicDataClient(Vertx vertx) {
    this.vertx = vertx;
  }

  /** The writer's reply; a refusal fails the future with a ReplyException that ApiError reads. */
  public Future<JsonObject> write(WriteCommand command) {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(TIMEOUT_MS)
        .addHeader(Addresses.ACTION, command.action());
    return vertx.eventBus().<JsonObject>request(Addresses.PUBLICDATA_WRITE, command.toJson(), options)
        .map(message -> message.body());
  }
}
