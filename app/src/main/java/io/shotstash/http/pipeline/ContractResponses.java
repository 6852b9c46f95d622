package io.shotstash.http.pipeline;

import io.shotstash.bus.ApiError;
import io.shotstash.http.LingeringClose;
import io.shotstash.http.RequestTrace;
import io.shotstash.http.Uploads;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Answers in the worker contract's shape: JSON, {@code X-Shotstash-Pipeline: 1}, refusals as {@code {code, message}}. */
final class ContractResponses {
  static final String VERSION_HEADER = "X-Shotstash-Pipeline";
  private static final Logger log = LoggerFactory.getLogger(ContractResponses.class);

  private ContractResponses() {}

  static Future<Void> json(RoutingContext ctx, int status, JsonObject body) {
    return json(ctx.response(), status, body);
  }

  static Future<Void> json(HttpServerResponse response, int status, JsonObject body) {
    return response.setStatusCode(status).putHeader(VERSION_HEADER, "1")
        .putHeader("Content-Type", "application/json; charset=utf-8").putHeader("Cache-Control", "no-store")
        .putHeader("X-Content-Type-Options", "nosniff")
        .end(body.encode());
  }

  /** A refusal on a bare response (a request the router never saw: HTTP itself could not read it). */
  static Future<Void> error(HttpServerResponse response, ApiError error) {
    return json(response, error.status(), new JsonObject().put("code", error.code()).put("message", error.message()));
  }

  static Future<Void> empty(RoutingContext ctx, int status) {
    return ctx.response().setStatusCode(status).putHeader(VERSION_HEADER, "1").putHeader("Cache-Control", "no-store")
        .end();
  }

  static Future<Void> error(RoutingContext ctx, ApiError error) {
    if (ctx.response().ended()) {
      return Future.succeededFuture();
    }
    if (error.retryAfterSeconds() != null) {
      ctx.response().putHeader("Retry-After", Integer.toString(error.retryAfterSeconds()));
    }
    // a refused upload still coming: LingeringClose says what happens to its connection
    return LingeringClose.answer(ctx,
        () -> json(ctx, error.status(), new JsonObject().put("code", error.code()).put("message", error.message())));
  }

  static Future<Void> internal(RoutingContext ctx, Throwable failure) {
    if (Uploads.clientWentAway(failure)) {
      // the worker dropped the connection (mid-upload, say): it retries by the contract; not our fault
      log.info("worker went away: {} {} ({})", ctx.request().method(), ctx.request().path(), failure.getMessage());
      return Future.succeededFuture();
    }
    String traceId = RequestTrace.id(ctx);
    RequestTrace.about(log.atError(), ctx).setCause(failure)
        .log("worker call failed: {} {} [traceId={}]", ctx.request().method(), ctx.request().path(), traceId);
    return error(ctx, ApiError.of(500, "INTERNAL", "Something went wrong on our side (trace " + traceId + ")"));
  }
}
