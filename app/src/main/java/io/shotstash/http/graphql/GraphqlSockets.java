package io.shotstash.http.graphql;

import graphql.GraphQL;
import io.shotstash.auth.Actor;
import io.shotstash.bus.Addresses;
import io.shotstash.http.Callers;
import io.shotstash.publicdata.PublicStateHolder;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Takes the WebSocket upgrades of {@code /graphql} (graphql-transport-ws) for one HTTP verticle and
 * keeps its open {@link GraphqlSocket}s, so that a session's end reaches the sockets that act for
 * it: they resolve their caller again, and close with 4401 when it names nobody any more. What asks
 * them to: {@link Addresses#PEOPLE_SESSIONS_ENDED} (a logout), a change of public records that
 * removed or changed the person (a purge, a level change), and a timer for what sends no signal
 * (a session's expiry, a grant's). Everything runs on the verticle's context.
 */
final class GraphqlSockets implements Handler<RoutingContext> {
  /** How often every signed-in socket checks its session even without a signal. */
  static final long RECHECK_MS = 60_000;

  private final Context context;
  private final GraphQL graphQL;
  private final Callers callers;
  private final Function<String, Future<Actor>> resolve;
  private final PublicStateHolder publicState;
  private final Set<GraphqlSocket> open = new LinkedHashSet<>();

  /** Must be created on the HTTP verticle's context (its consumers and timer end with it). */
  GraphqlSockets(Vertx vertx, GraphQL graphQL, Callers callers, PublicStateHolder publicState) {
    this.context = vertx.getOrCreateContext();
    this.graphQL = graphQL;
    this.callers = callers;
    this.resolve = callers::resolveToken;
    this.publicState = publicState;
    vertx.eventBus().<JsonObject>consumer(Addresses.PEOPLE_SESSIONS_ENDED,
        m -> recheck(m.body() == null ? null : m.body().getString("personId")));
    vertx.eventBus().<JsonObject>consumer(Addresses.PUBLICDATA_CHANGED, m -> recheckChangedPeople());
    vertx.setPeriodic(RECHECK_MS, id -> List.copyOf(open).forEach(GraphqlSocket::recheck));
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!ctx.request().canUpgradeToWebSocket()) {
      ctx.next();
      return;
    }
    String credential = callers.credential(ctx);
    ctx.request().toWebSocket().onFailure(ctx::fail).onSuccess(ws -> {
      GraphqlSocket socket = new GraphqlSocket(ws, graphQL, context, credential, resolve, open::remove);
      open.add(socket);
      socket.start();
    });
  }

  /** Open sockets, for tests and metrics. */
  int openSockets() {
    return open.size();
  }

  private void recheck(String personId) {
    if (personId == null) {
      return;
    }
    for (GraphqlSocket socket : List.copyOf(open)) {
      if (personId.equals(socket.personId())) {
        socket.recheck();
      }
    }
  }

  /**
   * A change of public records may have purged a person or changed their level: sockets whose
   * person is gone from this node's replica check their session at once. (A replica that applies the
   * change after this runs is caught by the timer.)
   */
  private void recheckChangedPeople() {
    for (GraphqlSocket socket : List.copyOf(open)) {
      String personId = socket.personId();
      if (personId != null && publicState.current().personById(personId).isEmpty()) {
        socket.recheck();
      }
    }
  }
}
