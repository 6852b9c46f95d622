package io.shotstash.worker;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.function.Supplier;

/**
 * {@code GET /healthz} of the standalone worker: 200 with {@code {phase, registered, currentJob, jobsDone}}
 * (phase: starting, registering, polling, working, backing-off, stopping, stopped). Anything else is 404.
 */
public final class HealthServer {
  private HealthServer() {}

  public static Future<HttpServer> start(Vertx vertx, String host, int port, Supplier<WorkerStatus> status) {
    return vertx.createHttpServer(new HttpServerOptions().setIdleTimeout(30)).requestHandler(req -> {
      if (req.method() == HttpMethod.GET && "/healthz".equals(req.path())) {
        req.response().putHeader("Content-Type", "application/json; charset=utf-8")
            .putHeader("Cache-Control", "no-store")
            .end(status.get().toJson().encode());
      } else {
        req.response().setStatusCode(404).end();
      }
    }).listen(port, host);
  }
}
