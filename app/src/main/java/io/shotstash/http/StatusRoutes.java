package io.shotstash.http;

import io.shotstash.bus.Addresses;
import io.shotstash.cluster.WriterRecord;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/v1/status}: live workers, queued jobs and jobs per status, for administrators (404
 * otherwise); also which node answered ({@code node}) and which runs the git writer ({@code writerNode},
 * null while none does, e.g. during a takeover).
 */
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
    Future<JsonObject> writer = WriterRecord.lookup(vertx).otherwiseEmpty();
    return Requests.ask(vertx, Addresses.PIPELINE_QUEUE, QueueActions.STATUS, new JsonObject())
        .compose(status -> writer.compose(w -> Envelope.ok(ctx, 200, status
            .put("node", WriterRecord.thisNode(vertx))
            .put("writerNode", w == null ? null : w.getString("node")))));
  }
}
