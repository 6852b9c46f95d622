package io.shotstash.http;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.Sessions;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The one place that resolves the caller of an {@code /api} request into an {@link Actor}: a
 * session cookie, a bearer session, or an agent grant ({@code Authorization: Bearer cfpa_...}). Also enforces the CSRF rule for cookie callers: a
 * state-changing request must be a non-GET with a JSON content type.
 */
public final class Callers {
  public static final String COOKIE = "shotstash_session";
  private static final String ACTOR = "actor";
  private static final int MAX_TOKEN_LENGTH = 4096;

  private final Sessions sessions;
  private final Grants grants;

  public Callers(Sessions sessions, Grants grants) {
    this.sessions = sessions;
    this.grants = grants;
  }

  /** Route handler: resolves the caller, then lets the request on. */
  public void resolve(RoutingContext ctx) {
    String bearer = bearerToken(ctx);
    String token = credential(ctx.request());
    if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
      ctx.put(ACTOR, Actor.ANONYMOUS);
      ctx.next();
      return;
    }
    boolean viaCookie = bearer == null;
    // The session lookup is asynchronous: hold the body until a later handler (a BodyHandler, or an
    // upload's pipe) asks for it, or it would be read and dropped meanwhile.
    ctx.request().pause();
    resolveToken(token).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      Actor actor = ar.result();
      if (actor instanceof Actor.Member && viaCookie && !csrfSafe(ctx)) {
        Envelope.error(ctx, ApiError.forbidden("A signed-in change must be sent as JSON"));
        return;
      }
      ctx.put(ACTOR, actor);
      ctx.next();
    });
  }

  /**
   * Who a token names now: an agent grant ({@code cfpa_...}; agents act only through their grants,
   * never with a session) or a session; anonymous when it names nobody (any more). The GraphQL
   * WebSocket asks again before each operation, so a socket acts as its session is now.
   */
  public Future<Actor> resolveToken(String token) {
    if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
      return Future.succeededFuture(Actor.ANONYMOUS);
    }
    if (token.startsWith("cfpa_")) {
      return grants.resolve(token).map(agent -> agent.<Actor>map(a -> a).orElse(Actor.ANONYMOUS));
    }
    return sessions.resolve(token).map(member -> member.<Actor>map(m -> m).orElse(Actor.ANONYMOUS));
  }

  /**
   * The token a request carries: its bearer header, else its session cookie (sessions only: an
   * agent grant is never a cookie); null when neither.
   */
  public static String credential(HttpServerRequest request) {
    String header = request.getHeader("Authorization");
    if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return header.substring(7).trim();
    }
    Cookie cookie = request.getCookie(COOKIE);
    return cookie == null || cookie.getValue().startsWith("cfpa_") ? null : cookie.getValue();
  }

  static String bearerToken(RoutingContext ctx) {
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    return header.substring(7).trim();
  }

  private static boolean csrfSafe(RoutingContext ctx) {
    HttpMethod m = ctx.request().method();
    if (m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS) {
      return true;
    }
    String type = ctx.request().getHeader("Content-Type");
    if (type != null && type.toLowerCase().startsWith("application/json")) {
      return true;
    }
    // a raw upload from this site's own pages: its Origin names this site
    return Uploads.isUpload(ctx) && sameOrigin(ctx);
  }

  static boolean sameOrigin(RoutingContext ctx) {
    String origin = ctx.request().getHeader("Origin");
    String host = ctx.request().getHeader("Host");
    if (origin == null || host == null) {
      return false;
    }
    String scheme = ctx.request().isSSL() ? "https://" : "http://";
    return origin.equalsIgnoreCase(scheme + host);
  }

  public static Actor actor(RoutingContext ctx) {
    Actor a = ctx.get(ACTOR);
    return a == null ? Actor.ANONYMOUS : a;
  }

  /** The signed-in member, or a 401 refusal. */
  public static Actor.Member member(RoutingContext ctx) {
    if (actor(ctx) instanceof Actor.Member m) {
      return m;
    }
    throw ApiError.unauthenticated().toException();
  }

  /** The signed-in member at {@code level} or above: 401 when nobody is signed in, else 403. */
  public static Actor.Member atLeast(RoutingContext ctx, AccountLevel level) {
    Actor.Member m = member(ctx);
    if (!m.atLeast(level)) {
      throw ApiError.forbidden("This needs the " + level.wire() + " account level").toException();
    }
    return m;
  }
}
