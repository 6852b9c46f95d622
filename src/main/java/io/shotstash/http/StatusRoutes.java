package io.shotstash.http;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /api/v1/status}: live workers, queued jobs and jobs per status, for administrators (404 otherwise). */
final class StatusRoutes {
  private final Vertx vertx;

  StatusRoutes(Vertx vertx) {
    this.vertx = vertx;
  }

  void mount(Router router) {
    router.get("/api/v1/status").handler(ctx -> Routes.run(ctx, status(ctx)));
  }

  private Future<Void> status(RoutingContext ctx) {
    if (!(Callers.actor(ctx) instanceof io.shotstash.auth.Actor.Member m) || !m.atLeast(AccountLevel.ADMINISTRATOR)) {
      throw ApiError.notFound().toException();
    }
    return Requests.ask(vertx, Addresses.PIPELINE_QUEUE, QueueActions.STATUS, new JsonObject())
        .compose(status -> Envelope.ok(ctx, 200, status));
  }
}
