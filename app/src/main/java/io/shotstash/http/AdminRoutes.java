package io.shotstash.http;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.people.PersonRules;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.ratelimit.WriteLimit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.HashMap;
import java.util.Map;

/**
 * The staff and agent surfaces under {@code /api/admin} (the moderation API). The caller is
 * authorised before anything is validated: whoever may not use a route gets 404, whatever they
 * sent. Then input is strict on every route: a query key or body key the route does not take is
 * 422, so a caller who misspells a parameter is told rather than ignored. The routes themselves are
 * {@link ModerationRoutes} and {@link AgentRoutes}; here are who may, the write gate and the
 * catch-all 404.
 */
record AdminRoutes(Vertx vertx, HttpServices services, Grants grants) {
  void mount(Router router, BodyHandler json) {
    new ModerationRoutes(this, services).mount(router, json);
    new AgentRoutes(this, services, grants).mount(router, json);
    // everything else under /api/admin is nobody's business
    router.route("/api/admin/*").handler(ctx -> Envelope.error(ctx, ApiError.notFound()));
  }

  // ---- who may ----

  /**
   * Lets the request on to the route's next registration when allowed; 404 otherwise, before the
   * body is even read (the gate is its own route: a BodyHandler must come first within a route).
   */
  static void gate(RoutingContext ctx, boolean allowed) {
    if (!allowed) {
      Envelope.error(ctx, ApiError.notFound());
      return;
    }
    ctx.next();
  }

  static boolean level(RoutingContext ctx, AccountLevel level) {
    return Callers.actor(ctx) instanceof Actor.Member m && m.atLeast(level);
  }

  static boolean agentWith(RoutingContext ctx, String scope) {
    return Callers.actor(ctx) instanceof Actor.Agent a && a.scopes().contains(scope);
  }

  static boolean staffOr(RoutingContext ctx, String scope) {
    return level(ctx, AccountLevel.STAFF) || agentWith(ctx, scope);
  }

  static void require(boolean allowed) {
    if (!allowed) {
      throw ApiError.notFound().toException();
    }
  }

  Future<JsonObject> moderation(String action, JsonObject body) {
    return Requests.ask(vertx, Addresses.MODERATION, action, body);
  }

  Future<JsonObject> write(RoutingContext ctx, String action, JsonObject params) {
    Actor actor = Callers.actor(ctx);
    String key = actor instanceof Actor.Agent a ? a.personId() : ((Actor.Member) actor).personId();
    return WriteLimit.admit(services.limiter(), key)
        .compose(v -> services.writes().write(new WriteCommand(action, actor, ctx.request().method().name(),
            ctx.request().path(), params)));
  }

  static String slug(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    if (slug == null || !PersonRules.SLUG.matcher(slug).matches()) {
      throw ApiError.notFound().toException();
    }
    return slug;
  }

  static Map<String, String> query(RoutingContext ctx) {
    Map<String, String> q = new HashMap<>();
    ctx.queryParams().forEach(e -> q.put(e.getKey(), e.getValue()));
    return q;
  }
}
