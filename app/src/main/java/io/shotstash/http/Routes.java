package io.shotstash.http;

import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/** Small glue shared by the route classes. */
final class Routes {
  private Routes() {}

  /** Refuses any query parameter on a route that takes none (422). */
  static void noQuery(RoutingContext ctx) {
    if (!ctx.queryParams().isEmpty()) {
      java.util.Map<String, String> problems = new java.util.LinkedHashMap<>();
      ctx.queryParams().names().forEach(n -> problems.put(n, "is not a known parameter"));
      throw io.shotstash.bus.ApiError.validation(problems).toException();
    }
  }

  /** Runs an async handler: a thrown or failed refusal goes to the failure handler, which writes it. */
  static void run(RoutingContext ctx, Future<?> work) {
    work.onFailure(ctx::fail);
  }
}
