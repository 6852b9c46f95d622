package io.shotstash.http;

import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The response shape of every {@code /api} route but the worker contract (docs/api.md →
 * Conventions): {@code {success, data, metadata}} or {@code {success: false, error, metadata}}.
 */
public final class Envelope {
  private static final Logger log = LoggerFactory.getLogger(Envelope.class);

  private Envelope() {}

  public static JsonObject metadata() {
    return new JsonObject().put("timestamp", Instant.now().toString());
  }

  public static Future<Void> ok(RoutingContext ctx, int status, Object data) {
    return send(ctx.response(), status,
        new JsonObject().put("success", true).put("data", data).put("metadata", metadata()));
  }

  /** A page of results with its paging metadata ({@code totalPages} at least 1). */
  public static Future<Void> page(RoutingContext ctx, Object data, int page, int perPage, long totalItems) {
    long totalPages = Math.max(1, (totalItems + perPage - 1) / perPage);
    JsonObject meta = metadata().put("page", page).put("perPage", perPage).put("totalItems", totalItems)
        .put("totalPages", totalPages);
    return send(ctx.response(), 200, new JsonObject().put("success", true).put("data", data).put("metadata", meta));
  }

  public static Future<Void> error(RoutingContext ctx, ApiError error) {
    return LingeringClose.answer(ctx, () -> error(ctx.response(), error, RequestTrace.id(ctx)));
  }

  /** A refusal on a bare response (a request the router never saw: HTTP itself could not read it). */
  public static Future<Void> error(HttpServerResponse response, ApiError error) {
    return error(response, error, UUID.randomUUID().toString());
  }

  private static Future<Void> error(HttpServerResponse response, ApiError error, String traceId) {
    JsonObject body = new JsonObject().put("code", error.code()).put("message", error.message());
    if (error.fields() != null) {
      body.put("fields", error.fields());
    }
    body.put("traceId", traceId);
    if (error.retryAfterSeconds() != null) {
      response.putHeader("Retry-After", Integer.toString(error.retryAfterSeconds()));
    }
    return send(response, error.status(),
        new JsonObject().put("success", false).put("error", body).put("metadata", metadata()));
  }

  /** Writes any failure: our refusals as they are, anything else as a 500 with a logged trace id. */
  public static Future<Void> failure(RoutingContext ctx, Throwable failure) {
    return LingeringClose.answer(ctx, () -> answer(ctx, failure));
  }

  private static Future<Void> answer(RoutingContext ctx, Throwable failure) {
    ApiError error = ApiError.from(failure);
    if (error != null) {
      return error(ctx.response(), error, ApiError.traceId(failure).orElseGet(() -> RequestTrace.id(ctx)));
    }
    if (Uploads.clientWentAway(failure) && ctx.response().closed()) {
      // the client dropped the connection (mid-upload, say): nothing of ours failed, and nobody is
      // left to answer; no stack trace, or every cancelled upload would page someone
      log.info("client went away: {} {} ({})", ctx.request().method(), ctx.request().path(), failure.getMessage());
      return Future.succeededFuture();
    }
    ApiError outage = Unavailable.of(failure).orElse(null);
    if (outage != null) {
      RequestTrace.about(log.atWarn(), ctx)
          .log("{} {} refused while {}: {}", ctx.request().method(), ctx.request().path(), outage.code(),
              String.valueOf(failure.getMessage()));
      return error(ctx.response(), outage, RequestTrace.id(ctx));
    }
    String traceId = RequestTrace.id(ctx);
    RequestTrace.about(log.atError(), ctx).setCause(failure)
        .log("request failed: {} {} [traceId={}]", ctx.request().method(), ctx.request().path(), traceId);
    ApiError internal = ApiError.internal();
    return send(ctx.response(), 500, new JsonObject().put("success", false)
        .put("error",
            new JsonObject().put("code", internal.code()).put("message", internal.message()).put("traceId", traceId))
        .put("metadata", metadata()));
  }

  private static Future<Void> send(HttpServerResponse response, int status, JsonObject body) {
    if (response.ended()) {
      return Future.succeededFuture();
    }
    // nosniff again: a request refused before routing never met the handler that sets it
    return response.setStatusCode(status)
        .putHeader("Content-Type", "application/json; charset=utf-8")
        .putHeader("Cache-Control", "no-store")
        .putHeader("X-Content-Type-Options", "nosniff")
        .end(body.encode());
  }
}
