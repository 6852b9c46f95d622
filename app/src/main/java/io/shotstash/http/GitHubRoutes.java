package io.shotstash.http;

import io.shotstash.auth.Tokens;
import io.shotstash.bus.ApiError;
import io.shotstash.people.GitHubClient;
import io.shotstash.people.GitHubSignup;
import io.shotstash.people.OAuthRules;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GitHub sign-in (docs/api.md → GitHub sign-in): {@code GET /api/auth/github/start} and
 * {@code GET /api/auth/github/callback}, OAuth with state and PKCE (S256).
 *
 * <p>The state is 32 random bytes. Only its SHA-256 is stored, with the PKCE verifier and the return
 * path, in PostgreSQL (any node may take the callback), for 10 minutes and one use. The state is
 * also set in an HttpOnly, SameSite=Lax cookie on the callback path, and the callback wants both: a
 * state that is valid but arrives without this browser's cookie is someone else's sign-in (login
 * CSRF: an attacker's code and state sent to a victim) and is refused.
 *
 * <p>The callback always answers a redirect: the return path on success, else
 * {@code /login?error=<code>}. Codes, states, verifiers and tokens are never logged.
 */
final class GitHubRoutes {
  private static final Logger log = LoggerFactory.getLogger(GitHubRoutes.class);
  static final String START = "/api/auth/github/start";
  static final String CALLBACK = "/api/auth/github/callback";
  static final String STATE_COOKIE = "shotstash_github_state";
  private static final Duration MINUTE = Duration.ofMinutes(1);
  private static final int PER_IP_PER_MINUTE = 30;
  private static final int PARAM_MAX = 512;

  private final HttpServices services;
  private final GitHubClient github;
  private final Callers callers;

  GitHubRoutes(Vertx vertx, HttpServices services, Callers callers) {
    this.services = services;
    this.github = new GitHubClient(vertx, services.config().github());
    this.callers = callers;
  }

  void mount(Router router) {
    router.get(START).handler(ctx -> Routes.run(ctx, start(ctx)));
    router.get(CALLBACK).handler(this::callback);
  }

  private boolean enabled() {
    return services.config().github().signInEnabled();
  }

  // ---- start ----

  private Future<Void> start(RoutingContext ctx) {
    if (!enabled()) {
      throw ApiError.notFound().toException();
    }
    return perIpLimit(ctx, "github-start").compose(v -> {
      String origin = origin(ctx);
      if (origin == null) {
        throw ApiError.of(400, "bad_request", "The request names no host").toException();
      }
      String returnPath = OAuthRules.safeReturnPath(single(ctx, "return"));
      String state = Tokens.random("");
      String verifier = Tokens.random("");
      return GitHubSignup.remember(services.pool(), Tokens.sha256(state), verifier, returnPath).compose(saved -> {
        ctx.response().addCookie(stateCookie(ctx, state, GitHubSignup.STATE_TTL_SECONDS));
        return redirect(ctx, OAuthRules.authorizeUrl(services.config().github().oauthUrl(),
            services.config().github().clientId(), origin + CALLBACK, state, OAuthRules.s256Challenge(verifier)));
      });
    });
  }

  // ---- callback ----

  /** A sign-in that ends at {@code /login?error=<code>}. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String code;

    Refused(String code) {
      super(code, null, false, false);
      this.code = code;
    }
  }

  private void callback(RoutingContext ctx) {
    if (!enabled()) {
      Envelope.error(ctx, ApiError.notFound());
      return;
    }
    // read before the spent cookie is set: the request's and the response's cookies share one jar
    Cookie bound = ctx.request().getCookie(STATE_COOKIE);
    String boundState = bound == null ? null : bound.getValue();
    ctx.response().addCookie(stateCookie(ctx, "", 0)); // the state is spent whatever happens next
    Future<String> outcome;
    try {
      outcome = signIn(ctx, boundState);
    } catch (RuntimeException e) {
      outcome = Future.failedFuture(e);
    }
    outcome.onComplete(ar -> redirect(ctx,
        ar.succeeded() ? ar.result() : "/login?error=" + errorCode(ctx, ar.cause())));
  }

  /**
   * The whole callback; succeeds with the path to send the signed-in browser to. {@code boundState}
   * is the state cookie of this browser.
   */
  private Future<String> signIn(RoutingContext ctx, String boundState) {
    return perIpLimit(ctx, "github-callback").compose(v -> {
      String state = single(ctx, "state");
      if (state == null || state.isEmpty() || state.length() > PARAM_MAX || !Tokens.sameSecret(boundState, state)) {
        throw new Refused("state_mismatch");
      }
      return GitHubSignup.take(services.pool(), Tokens.sha256(state));
    }).compose(pending -> {
      if (pending.isEmpty()) {
        throw new Refused("state_mismatch");
      }
      String code = single(ctx, "code");
      String origin = origin(ctx);
      if (code == null || code.isEmpty() || code.length() > PARAM_MAX || origin == null) {
        throw new Refused("github_failed"); // GitHub sent no code: the person said no, or something broke
      }
      return github.identify(code, origin + CALLBACK, pending.get().verifier())
          .compose(identity -> member(identity))
          .compose(person -> services.sessions().open(person, ctx.request().getHeader("User-Agent"), "github"))
          .map(issued -> {
            ctx.response().addCookie(callers.sessionCookie(ctx, issued.token(), issued.maxAgeSeconds()));
            return pending.get().returnPath();
          });
    });
  }

  /** The member this GitHub account is: refused when blocked, the linked one, or a new one. */
  private Future<Person> member(GitHubClient.Identity identity) {
    GitHubClient.User user = identity.user();
    PublicState state = services.publicState().current();
    SpamPurge block = GitHubSignup.blockFor(state, user.id(), user.login()).orElse(null);
    if (block != null) {
      log.info("refused GitHub account {}: spam purge {} blocks it", user.id(), block.id());
      return Future.failedFuture(new Refused("account_blocked"));
    }
    Instant now = Instant.now();
    Person linked = GitHubSignup.linked(state, user.id()).orElse(null);
    if (linked != null) {
      if (linked.isAgentAccount()) {
        return Future.failedFuture(new Refused("account_unavailable")); // agents never sign in
      }
      return GitHubSignup.refreshFacts(services.pool(), linked.id(), user.facts(now)).map(linked);
    }
    // the write rule checks the block again and makes the member inside the writer
    return services.writes().write(GitHubSignup.command(user, identity.email(), now, CALLBACK))
        .map(reply -> GitHubSignup.personFromReply(services.publicState().current(), reply));
  }

  /** The error code of a failed callback; logs what is ours to look into, never a secret. */
  private static String errorCode(RoutingContext ctx, Throwable cause) {
    if (cause instanceof Refused r) {
      return r.code;
    }
    if (cause instanceof GitHubClient.Failure f) {
      log.info("GitHub sign-in failed: {}", f.getMessage());
      return "github_failed";
    }
    ApiError error = ApiError.from(cause);
    if (error != null && error.code().equals(GitHubSignup.blockedError().code())) {
      return "account_blocked";
    }
    if (error != null && error.status() == 429) {
      if (error.retryAfterSeconds() != null) {
        ctx.response().putHeader("Retry-After", Integer.toString(error.retryAfterSeconds()));
      }
      return "rate_limited";
    }
    String traceId = UUID.randomUUID().toString();
    log.error("GitHub sign-in failed on our side [traceId={}]", traceId, cause);
    return "internal_error";
  }

  // ---- helpers ----

  private Future<Void> perIpLimit(RoutingContext ctx, String what) {
    String ip = ctx.request().remoteAddress() == null ? "unknown" : ctx.request().remoteAddress().hostAddress();
    return services.limiter().tryAcquire(what + ":" + ip, PER_IP_PER_MINUTE, MINUTE)
        .compose(AuthRoutes::refuseIfLimited);
  }

  /** A query parameter given exactly once, else null. */
  private static String single(RoutingContext ctx, String name) {
    List<String> values = ctx.queryParam(name);
    return values.size() == 1 ? values.get(0) : null;
  }

  /**
   * {@code scheme://host[:port]} of this site as the browser sees it (SHOTSTASH_PUBLIC_ORIGIN, or
   * the scheme a trusted proxy reports and the Host): the redirect_uri is built from it, at start
   * and again at the callback. GitHub accepts only the callback URL registered for the OAuth app,
   * so a forged Host cannot send the code elsewhere.
   */
  private String origin(RoutingContext ctx) {
    return callers.siteOrigin(ctx);
  }

  private static Future<Void> redirect(RoutingContext ctx, String location) {
    if (ctx.response().ended()) {
      return Future.succeededFuture();
    }
    return ctx.response().setStatusCode(302).putHeader("Location", location)
        .putHeader("Cache-Control", "no-store").putHeader("Referrer-Policy", "no-referrer").end();
  }

  /** Binds a pending sign-in to the browser that started it; sent only to the callback. */
  private Cookie stateCookie(RoutingContext ctx, String state, int maxAgeSeconds) {
    return Cookie.cookie(STATE_COOKIE, state).setHttpOnly(true).setSameSite(CookieSameSite.LAX).setPath(CALLBACK)
        .setMaxAge(maxAgeSeconds).setSecure(callers.secure(ctx));
  }
}
