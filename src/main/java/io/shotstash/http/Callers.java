package io.shotstash.http;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.Sessions;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;

/**
 * The one place that resolves the caller of an {@code /api} request into an {@link Actor}: a
 * session cookie, a bearer session, or an agent grant ({@code Authorization: Bearer cfpa_...}). Also enforces the CSRF rule for cookie callers: a
 * state-changing request must be a non-GET with a JSON content type.
 */
public final class Callers {
  public static final String COOKIE = "shotstash_session";
  private static final String ACTOR = "actor";

  private final Sessions sessions;
  private final Grants grants;

  public Callers(Sessions sessions, Grants grants) {
    this.sessions = sessions;
    this.grants = grants;
  }

  /** Route handler: resolves the caller, then lets the request on. */
  public void resolve(RoutingContext ctx) {
    String bearer = bearerToken(ctx);
    Cookie cookie = ctx.request().getCookie(COOKIE);
    String token = bearer != null ? bearer : cookie == null ? null : cookie.getValue();
    if (token == null || token.isEmpty() || token.length() > 4096) {
      ctx.put(ACTOR, Actor.ANONYMOUS);
      ctx.next();
      return;
    }
    boolean viaCookie = bearer == null;
    // The session lookup is asynchronous: hold the body until a later handler (a BodyHandler, or an
    // upload's pipe) asks for it, or it would be read and dropped meanwhile.
    ctx.request().pause();
    if (bearer != null && bearer.startsWith("cfpa_")) {
      // an agent grant: agents act only through their grants, never with a session
      grants.resolve(bearer).onComplete(ar -> {
        if (ar.failed()) {
          ctx.fail(ar.cause());
          return;
        }
        ctx.put(ACTOR, ar.result().<Actor>map(a -> a).orElse(Actor.ANONYMOUS));
        ctx.next();
      });
      return;
    }
    sessions.resolve(token).onComplete(ar -> {
      Optional<Actor.Member> member = ar.succeeded() ? ar.result() : Optional.empty();
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      if (member.isPresent() && viaCookie && !csrfSafe(ctx)) {
        Envelope.error(ctx, ApiError.forbidden("A signed-in change must be sent as JSON"));
        return;
      }
      ctx.put(ACTOR, member.<Actor>map(m -> m).orElse(Actor.ANONYMOUS));
      ctx.next();
    });
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
