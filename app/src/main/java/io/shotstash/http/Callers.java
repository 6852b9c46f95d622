package io.shotstash.http;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.Sessions;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The one place that resolves the caller of an {@code /api} request into an {@link Actor}: a
 * session cookie, a bearer session, or an agent grant ({@code Authorization: Bearer cfpa_...}). Also enforces the CSRF rule for cookie callers: a
 * state-changing request must be a non-GET with a JSON content type, and a WebSocket must be
 * opened from this site. It knows the session cookie (its name, {@code Secure} or not) and this
 * site's origin as browsers see it ({@link SiteOrigin}).
 */
public final class Callers {
  /** The session cookie on a site browsers reach over plain HTTP (and its name before {@link #SECURE_COOKIE}). */
  public static final String COOKIE = "shotstash_session";
  /**
   * The session cookie on a site browsers reach over https. Browsers keep a {@code __Host-} cookie
   * only if it is {@code Secure}, set by this very host over https, with {@code Path=/} and no
   * {@code Domain}: a sibling subdomain or a man in the middle on plain HTTP cannot plant one.
   */
  public static final String SECURE_COOKIE = "__Host-" + COOKIE;
  private static final String ACTOR = "actor";
  private static final int MAX_TOKEN_LENGTH = 4096;

  private final Sessions sessions;
  private final Grants grants;
  private final SiteOrigin site;

  public Callers(Sessions sessions, Grants grants, SiteOrigin site) {
    this.sessions = sessions;
    this.grants = grants;
    this.site = site;
  }

  /** Whether the request carries a session cookie under either name (for routes that resolve callers their own way). */
  public static boolean hasSessionCookie(HttpServerRequest req) {
    return req.getCookie(SECURE_COOKIE) != null || req.getCookie(COOKIE) != null;
  }

  // ---- this site, as the browser sees it ----

  /** The scheme the browser used (https over TLS to us, or as a trusted proxy reports it). */
  public String scheme(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    String peer = req.remoteAddress() == null ? null : req.remoteAddress().hostAddress();
    return site.scheme(req.isSSL(), peer, req.getHeader("X-Forwarded-Proto"));
  }

  /** {@code scheme://host[:port]} of this site: the public origin when set, else from the request. */
  public String siteOrigin(RoutingContext ctx) {
    return site.origin(scheme(ctx), ctx.request().getHeader("Host"));
  }

  /** Whether the request's {@code Origin} names this site (absent and {@code null} do not). */
  public boolean sameOrigin(RoutingContext ctx) {
    return site.sameOrigin(ctx.request().getHeader("Origin"), scheme(ctx), ctx.request().getHeader("Host"));
  }

  /** Whether browsers reach this site over https, so its cookies must be {@code Secure}. */
  public boolean secure(RoutingContext ctx) {
    return site.secure(scheme(ctx));
  }

  /** The session cookie, for password and GitHub sign-in alike: {@link #SECURE_COOKIE} over https. */
  public Cookie sessionCookie(RoutingContext ctx, String value, int maxAgeSeconds) {
    boolean secure = secure(ctx);
    return Cookie.cookie(secure ? SECURE_COOKIE : COOKIE, value).setHttpOnly(true).setSameSite(CookieSameSite.LAX)
        .setPath("/").setMaxAge(maxAgeSeconds).setSecure(secure);
  }

  /** Sign-out: expires the session cookie, and over https the old-named one a browser may still hold. */
  public void clearSessionCookies(RoutingContext ctx) {
    ctx.response().addCookie(sessionCookie(ctx, "", 0));
    if (secure(ctx)) {
      ctx.response().addCookie(Cookie.cookie(COOKIE, "").setHttpOnly(true).setSameSite(CookieSameSite.LAX)
          .setPath("/").setMaxAge(0));
    }
  }

  /**
   * The session cookie a request carries. Over https only {@link #SECURE_COOKIE} counts (an old-named
   * cookie there could have been planted); over plain HTTP the old name, as before.
   */
  private Cookie sessionCookie(RoutingContext ctx) {
    Cookie secureCookie = ctx.request().getCookie(SECURE_COOKIE);
    if (secureCookie != null || secure(ctx)) {
      return secureCookie;
    }
    return ctx.request().getCookie(COOKIE);
  }

  // ---- callers ----

  /** Route handler: resolves the caller, then lets the request on. */
  public void resolve(RoutingContext ctx) {
    String bearer = bearerToken(ctx);
    String token = credential(ctx);
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
      if (actor instanceof Actor.Member && viaCookie && ctx.request().canUpgradeToWebSocket()
          && ctx.request().getHeader("Origin") != null && !sameOrigin(ctx)) {
        // a cookie rides along on a WebSocket opened by any page: only this site's may use it
        Envelope.error(ctx, ApiError.forbidden("A signed-in WebSocket must be opened from this site"));
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
    if (token.startsWith(Grants.TOKEN_PREFIX)) {
      return grants.resolve(token).map(agent -> agent.<Actor>map(a -> a).orElse(Actor.ANONYMOUS));
    }
    return sessions.resolve(token).map(member -> member.<Actor>map(m -> m).orElse(Actor.ANONYMOUS));
  }

  /**
   * The token a request carries: its bearer header, else its session cookie (sessions only: an
   * agent grant is never a cookie); null when neither.
   */
  public String credential(RoutingContext ctx) {
    String bearer = bearerToken(ctx);
    if (bearer != null) {
      return bearer;
    }
    Cookie cookie = sessionCookie(ctx);
    return cookie == null || cookie.getValue().startsWith(Grants.TOKEN_PREFIX) ? null : cookie.getValue();
  }

  static String bearerToken(RoutingContext ctx) {
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    return header.substring(7).trim();
  }

  private boolean csrfSafe(RoutingContext ctx) {
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
