package io.shotstash.http;

import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/** Small glue shared by the route classes. */
final class Routes {
  private Routes() {}

  /** Runs an async handler: a thrown or failed refusal goes to the failure handler, which writes it. */
  static void run(RoutingContext ctx, Future<?> work) {
    work.onFailure(ctx::fail);
  }
}
