package io.shotstash.http;

import io.shotstash.metrics.Metrics;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /health} (the process answers), {@code GET /ready} (it can serve), {@code GET /metrics}. */
final class OpsRoutes {
  private final HttpServices services;

  OpsRoutes(HttpServices services) {
    this.services = services;
  }

  void mount(Router router) {
    router.get("/health").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "ok")));
    router.get("/ready").handler(this::ready);
    router.get("/metrics").handler(ctx -> {
      Metrics.bindJvmMetrics(); // no-op once the app bound them after its start
      ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
          .end(Metrics.registry().scrape());
    });
  }

  /** Ready when PostgreSQL answers, every migration is applied and the public state is loaded. */
  private void ready(RoutingContext ctx) {
    boolean migrated = services.migrated().getAsBoolean();
    boolean stateLoaded = services.publicState().current() != null;
    services.pool().query("SELECT 1").execute()
        .map(rows -> true)
        .otherwise(false)
        .onComplete(ar -> {
          boolean db = ar.succeeded() && ar.result();
          boolean ready = db && migrated && stateLoaded;
          json(ctx, ready ? 200 : 503, new JsonObject().put("ready", ready).put("checks", new JsonObject()
              .put("database", db).put("migrations", migrated).put("publicState", stateLoaded)
              .put("commit", stateLoaded ? services.publicState().current().commit() : null)));
        });
  }

  private static Future<Void> json(RoutingContext ctx, int status, JsonObject body) {
    return ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=utf-8")
        .putHeader("Cache-Control", "no-store").end(body.encode());
  }
}
