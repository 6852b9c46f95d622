package io.shotstash.http.graphql;

import graphql.GraphQLContext;
import graphql.schema.DataFetchingEnvironment;
import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.http.Callers;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.ext.web.RoutingContext;

/**
 * Who runs a GraphQL operation, and the checks fields make. The caller is resolved by
 * {@link Callers#resolve} on the HTTP request (or the WebSocket upgrade) before execution; a
 * bearer session sent in the WebSocket's connection_init payload replaces it for that socket.
 */
final class GraphqlAuth {
  /** Context key: the {@link Actor} of this operation, when known before execution. */
  static final String ACTOR = "shotstash.actor";
  /** Context key: {@link #HTTP} or {@link #WS}. */
  static final String TRANSPORT = "shotstash.transport";
  static final String HTTP = "http";
  static final String WS = "ws";

  private GraphqlAuth() {}

  static Actor actor(GraphQLContext context) {
    Actor actor = context.get(ACTOR);
    if (actor != null) {
      return actor;
    }
    RoutingContext rc = context.get(RoutingContext.class);
    return rc == null ? Actor.ANONYMOUS : Callers.actor(rc);
  }

  /** The signed-in person, or UNAUTHENTICATED. */
  static Actor.Member member(DataFetchingEnvironment env) {
    if (actor(env.getGraphQlContext()) instanceof Actor.Member m) {
      return m;
    }
    throw ApiError.unauthenticated().toException();
  }

  /** The signed-in person at {@code level} or above: UNAUTHENTICATED, else FORBIDDEN. */
  static Actor.Member atLeast(DataFetchingEnvironment env, AccountLevel level) {
    Actor.Member m = member(env);
    if (!m.atLeast(level)) {
      throw ApiError.forbidden("This needs the " + level.wire() + " account level").toException();
    }
    return m;
  }

  static boolean overWebSocket(DataFetchingEnvironment env) {
    return WS.equals(env.getGraphQlContext().get(TRANSPORT));
  }
}
