package io.shotstash.http.graphql;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/** The services the GraphQL layer delegates to: {@code media.library} and {@code pipeline.queue}. */
record Bus(Vertx vertx) {
  Future<JsonObject> library(String action, JsonObject body) {
    return Requests.ask(vertx, Addresses.MEDIA_LIBRARY, action, body);
  }

  Future<JsonObject> queue(String action, JsonObject body) {
    return Requests.ask(vertx, Addresses.PIPELINE_QUEUE, action, body);
  }
}
