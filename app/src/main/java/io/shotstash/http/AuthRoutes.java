package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Tokens;
import io.shotstash.bus.ApiError;
import io.shotstash.people.AccountWrites;
import io.shotstash.people.PersonRules;
import io.shotstash.people.PersonView;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.ratelimit.SlidingWindow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * First-run setup and password sessions: {@code POST /api/setup}, {@code POST /api/auth/login},
 * {@code POST /api/auth/logout}, {@code GET /api/auth/me}.
 */
record AuthRoutes(Vertx vertx, HttpServices services, Callers callers) {
  private static final Duration MINUTE = Duration.ofMinutes(1);
  private static final int PER_IP_PER_MINUTE = 30;
  private static final int FAILED_PER_ACCOUNT_PER_MINUTE = 10;

  void mount(Router router, BodyHandler json) {
    router.post("/api/setup").handler(json).handler(ctx -> Routes.run(ctx, setup(ctx)));
    // the login guard is a route of its own: vertx-web wants a body handler before any other
    router.post("/api/auth/login").handler(this::loginFromThisSite);
    router.post("/api/auth/login").handler(json).handler(ctx -> Routes.run(ctx, login(ctx)));
    router.post("/api/auth/logout").handler(json).handler(ctx -> Routes.run(ctx, logout(ctx)));
    router.get("/api/auth/me").handler(ctx -> Routes.run(ctx, me(ctx)));
  }

  private Future<Void> setup(RoutingContext ctx) {
    return perIpLimit(ctx, "setup").compose(v -> {
      if (services.publicState().current().setupDone()) {
        throw ApiError.conflict("conflict", "Setup is already done").toException();
      }
      if (!Tokens.sameSecret(ctx.request().getHeader("X-Setup-Token"), services.setupToken())) {
        throw ApiError.of(401, "unauthenticated", "The X-Setup-Token header is missing or wrong").toException();
      }
      return NewAccount.read(ctx, true).params(vertx)
          .compose(params -> services.writes()
              .write(new WriteCommand(AccountWrites.SETUP, Actor.SYSTEM, "POST", "/api/setup", params)))
          .compose(reply -> Envelope.ok(ctx, 201, reply.getJsonObject("person")));
    });
  }

  /**
   * Login CSRF: a page on another site can post a form (text/plain, urlencoded, multipart: no
   * preflight) here and sign the browser in to an account the attacker controls. So a login must
   * be JSON, which a cross-site page can only send with CORS permission it never gets, and a
   * browser that names its Origin must name this site. Callers without Origin (scripts) pass.
   */
  private void loginFromThisSite(RoutingContext ctx) {
    String type = ctx.request().getHeader("Content-Type");
    String mediaType = type == null ? "" : type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    if (!mediaType.equals("application/json")) {
      Envelope.error(ctx, ApiError.of(415, "unsupported_media_type", "Send the login as application/json"));
      return;
    }
    if (ctx.request().getHeader("Origin") != null && !callers.sameOrigin(ctx)) {
      Envelope.error(ctx, ApiError.of(403, "cross_origin", "A sign-in must come from this site's own pages"));
      return;
    }
    ctx.next();
  }

  private Future<Void> login(RoutingContext ctx) {
    return perIpLimit(ctx, "login").compose(v -> {
      JsonBody body = JsonBody.of(ctx, Set.of("login", "password"));
      String login = body.string("login");
      String password = body.string("password");
      if (login == null || login.isBlank() || login.length() > 254) {
        body.problem("login", "is required: a slug or an email");
      }
      if (password == null || password.isEmpty() || password.length() > PersonRules.PASSWORD_MAX) {
        body.problem("password", "is required");
      }
      body.validate();
      String given = login.strip();
      return services.sessions().findLogin(given).compose(account -> {
        String accountKey = failedLoginKey(account, given);
        return services.limiter().check(accountKey, FAILED_PER_ACCOUNT_PER_MINUTE, MINUTE).compose(d -> {
          if (!d.allowed()) {
            throw ApiError.rateLimited(d.retryAfterSeconds()).toException();
          }
          return services.sessions().login(account, password, ctx.request().getHeader("User-Agent"));
        }).compose(issued -> issued.isPresent() ? Future.succeededFuture(issued.get())
            : services.limiter().record(accountKey, MINUTE).compose(x -> Future.failedFuture(
                ApiError.of(401, "invalid_credentials", "The login or the password is wrong").toException())));
      }).compose(s -> {
        ctx.response().addCookie(callers.sessionCookie(ctx, s.token(), s.maxAgeSeconds()));
        return Envelope.ok(ctx, 200, new JsonObject().put("token", s.token())
            .put("person", PersonView.selfJson(s.person(), s.email())));
      });
    });
  }

  /**
   * What failed logins are counted under: the account, whichever of its slug or email was typed
   * (else 10 guesses at each would make 20); an unknown login under its normalised form, so
   * guessing at names that do not exist is limited as well.
   */
  static String failedLoginKey(Optional<Person> account, String login) {
    return account.map(p -> "login-failed:person:" + p.id())
        .orElseGet(() -> "login-failed:login:" + login.strip().toLowerCase(Locale.ROOT));
  }

  private Future<Void> logout(RoutingContext ctx) {
    Actor.Member member = Callers.member(ctx);
    return services.sessions().revoke(member.sessionId(), member.personId()).compose(v -> {
      callers.clearSessionCookies(ctx);
      return Envelope.ok(ctx, 200, new JsonObject().put("signedOut", true));
    });
  }

  private Future<Void> me(RoutingContext ctx) {
    Actor.Member member = Callers.member(ctx);
    return services.sessions().emailOf(member.personId()).compose(email -> Envelope.ok(ctx, 200,
        PersonView.selfJson(services.publicState().current().personById(member.personId()).orElseThrow(), email)));
  }

  private Future<Void> perIpLimit(RoutingContext ctx, String what) {
    String ip = ctx.request().remoteAddress() == null ? "unknown" : ctx.request().remoteAddress().hostAddress();
    return services.limiter().tryAcquire(what + ":" + ip, PER_IP_PER_MINUTE, MINUTE).compose(d -> refuseIfLimited(d));
  }

  static Future<Void> refuseIfLimited(SlidingWindow.Decision d) {
    return d.allowed() ? Future.succeededFuture()
        : Future.failedFuture(ApiError.rateLimited(d.retryAfterSeconds()).toException());
  }
}
