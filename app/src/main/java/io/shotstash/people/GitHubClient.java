package io.shotstash.people;

import io.shotstash.config.Config;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.function.Function;

/**
 * The calls GitHub sign-in makes: the OAuth code exchange on {@code SHOTSTASH_GITHUB_OAUTH_URL},
 * then {@code /user} and {@code /user/emails} on {@code SHOTSTASH_GITHUB_API_URL}. Every failure
 * (no answer, a status other than 200, an answer of the wrong shape) is a {@link Failure} whose
 * message is ours and never carries the code, the verifier, the client secret or the token.
 */
public final class GitHubClient {
  /** Each call; three calls and the write still fit in the API's 30 s. */
  private static final long CALL_TIMEOUT_MS = 8_000;
  private static final String API_VERSION = "2022-11-28";

  private final WebClient web;
  private final Config.GitHub settings;

  public GitHubClient(Vertx vertx, Config.GitHub settings) {
    this.settings = settings;
    this.web = WebClient.create(vertx, new WebClientOptions().setUserAgent("Shotstash").setFollowRedirects(false)
        .setConnectTimeout(5_000));
  }

  /** What GitHub says about the signed-in account. */
  public record User(long id, String login, String name, Instant createdAt, int publicRepos, int followers) {
    /** The private profile's {@code github} facts (docs/api.md → GitHub sign-in). */
    public JsonObject facts(Instant checkedAt) {
      return new JsonObject().put("login", login)
          .put("accountCreatedAt", createdAt == null ? null : createdAt.toString())
          .put("publicRepos", publicRepos).put("followers", followers)
          .put("status", "ok").put("checkedAt", checkedAt.toString());
    }
  }

  /** The account and its primary verified email (null when GitHub has none). */
  public record Identity(User user, String email) {}

  /** GitHub did not give us what sign-in needs. */
  public static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failure(String message) {
      super(message, null, false, false);
    }
  }

  /** The code exchange, then the account and its email. */
  public Future<Identity> identify(String code, String redirectUri, String verifier) {
    return exchange(code, redirectUri, verifier).compose(token -> {
      Future<User> user = user(token);
      Future<String> email = primaryVerifiedEmail(token);
      return Future.all(user, email).map(done -> new Identity(user.result(), email.result()));
    });
  }

  /** POST {@code /login/oauth/access_token} with PKCE: the access token. */
  Future<String> exchange(String code, String redirectUri, String verifier) {
    MultiMap form = MultiMap.caseInsensitiveMultiMap()
        .add("client_id", settings.clientId())
        .add("client_secret", settings.clientSecret())
        .add("code", code)
        .add("redirect_uri", redirectUri)
        .add("code_verifier", verifier);
    return web.postAbs(settings.oauthUrl() + "/login/oauth/access_token")
        .putHeader("Accept", "application/json").timeout(CALL_TIMEOUT_MS)
        .sendForm(form).transform(ar -> read(ar, "the token exchange", response -> {
          JsonObject body = jsonObject(response, "the token exchange");
          if (!(body.getValue("access_token") instanceof String token) || token.isBlank()) {
            // GitHub answers 200 with {error} for a bad code or verifier; the error is a fixed word
            throw new Failure("the token exchange was refused: " + word(body.getValue("error")));
          }
          return token;
        }));
  }

  /** GET {@code /user}. */
  Future<User> user(String token) {
    return api("/user", token).send().transform(ar -> read(ar, "GET /user", response -> {
      JsonObject body = jsonObject(response, "GET /user");
      if (!(body.getValue("id") instanceof Number id) || id.longValue() <= 0
          || !(body.getValue("login") instanceof String login) || !OAuthRules.isGitHubLogin(login)) {
        throw new Failure("GET /user did not name an account");
      }
      return new User(id.longValue(), login, body.getValue("name") instanceof String name ? name : null,
          instant(body.getValue("created_at")), count(body.getValue("public_repos")),
          count(body.getValue("followers")));
    }));
  }

  /** GET {@code /user/emails}: the primary address if GitHub has verified it, else null. */
  Future<String> primaryVerifiedEmail(String token) {
    return api("/user/emails", token).send().transform(ar -> read(ar, "GET /user/emails", response -> {
      JsonArray emails;
      try {
        emails = response.bodyAsJsonArray();
      } catch (RuntimeException e) {
        throw new Failure("GET /user/emails did not answer a JSON array");
      }
      for (Object item : emails == null ? new JsonArray() : emails) {
        if (item instanceof JsonObject e && Boolean.TRUE.equals(e.getValue("primary"))
            && Boolean.TRUE.equals(e.getValue("verified")) && e.getValue("email") instanceof String address
            && PersonRules.emailProblem(address) == null) {
          return PersonRules.normalizeEmail(address);
        }
      }
      return null;
    }));
  }

  private HttpRequest<Buffer> api(String path, String token) {
    return web.getAbs(settings.apiUrl() + path).bearerTokenAuthentication(token)
        .putHeader("Accept", "application/vnd.github+json").putHeader("X-GitHub-Api-Version", API_VERSION)
        .timeout(CALL_TIMEOUT_MS);
  }

  /** A 200 answer read by {@code parse}; anything else (or a {@link Failure} from it) fails the call. */
  private static <T> Future<T> read(AsyncResult<HttpResponse<Buffer>> ar, String what,
      Function<HttpResponse<Buffer>, T> parse) {
    try {
      if (ar.failed()) {
        throw new Failure(what + " did not answer (" + ar.cause().getClass().getSimpleName() + ")");
      }
      if (ar.result().statusCode() != 200) {
        throw new Failure(what + " answered " + ar.result().statusCode());
      }
      return Future.succeededFuture(parse.apply(ar.result()));
    } catch (Failure f) {
      return Future.failedFuture(f);
    }
  }

  private static JsonObject jsonObject(HttpResponse<Buffer> response, String what) {
    JsonObject body;
    try {
      body = response.bodyAsJsonObject();
    } catch (RuntimeException e) {
      throw new Failure(what + " did not answer a JSON object");
    }
    if (body == null) {
      throw new Failure(what + " answered no body");
    }
    return body;
  }

  private static Instant instant(Object value) {
    try {
      return value instanceof String s ? Instant.parse(s) : null;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static int count(Object value) {
    return value instanceof Number n ? (int) Math.max(0, Math.min(Integer.MAX_VALUE, n.longValue())) : 0;
  }

  /** An error word from GitHub, kept only if it is a plain word (it goes to our log). */
  private static String word(Object value) {
    return value instanceof String s && s.matches("[a-z_]{1,64}") ? s : "no reason given";
  }
}
