package io.shotstash.people;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.auth.Passwords;
import io.shotstash.bus.Addresses;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.records.Person;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;

/**
 * Sessions: password sign-in, the JWT that names a session, and resolving a token back to the
 * person. The JWT is only a signed pointer: every request checks the session row (so logout and
 * revocation act at once) and reads the level from the live public record, never from the token.
 */
public final class Sessions {
  private static final String ISSUER = "shotstash";

  private final Vertx vertx;
  private final Pool pool;
  private final PublicStateHolder state;
  private final JWTAuth jwt;
  private final int sessionDays;

  public Sessions(Vertx vertx, Pool pool, PublicStateHolder state, String jwtSecret, int sessionDays) {
    this.vertx = vertx;
    this.pool = pool;
    this.state = state;
    this.sessionDays = sessionDays;
    this.jwt = JWTAuth.create(vertx, new JWTAuthOptions()
        .setJWTOptions(new JWTOptions().setIssuer(ISSUER))
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(jwtSecret)));
  }

  /** A signed-in session: its JWT and the person. */
  public record Issued(String token, Person person, String email, int maxAgeSeconds) {}

  /**
   * The account a slug or an email names, if any. Looked up before the password is checked, so the
   * failed-login limit can count per account whichever of the two was typed.
   */
  public Future<Optional<Person>> findLogin(String login) {
    PublicState snapshot = state.current();
    return login.contains("@")
        ? pool.preparedQuery(PrivateSql.PERSON_BY_EMAIL).execute(Tuple.of(PersonRules.normalizeEmail(login)))
            .map(rows -> rows.size() == 0 ? Optional.<Person>empty()
                : snapshot.personById(rows.iterator().next().getUUID(0).toString()))
        : Future.succeededFuture(snapshot.personBySlug(login));
  }

  /**
   * Checks the password of the account {@link #findLogin} found; on success opens a session. Empty
   * when there is no such account or the password is wrong (the caller answers 401 without saying
   * which).
   */
  public Future<Optional<Issued>> login(Optional<Person> found, String password, String userAgent) {
    Optional<Person> signable = found.filter(p -> !p.isAgentAccount());
    Future<String> hash = signable.isEmpty() ? Future.succeededFuture(null)
        : pool.preparedQuery(PrivateSql.PASSWORD_HASH).execute(Tuple.of(UUID.fromString(signable.get().id())))
            .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString(0));
    // bcrypt runs even for an unknown login, so the answer takes as long either way
    return hash.compose(h -> vertx.executeBlocking(() -> Passwords.verify(password, h)))
        .compose(ok -> ok ? open(signable.get(), userAgent, "password").map(Optional::of)
            : Future.succeededFuture(Optional.empty()));
  }

  /** Opens a session for a person who proved who they are. */
  public Future<Issued> open(Person person, String userAgent, String method) {
    String sessionId = Ids.uuid7();
    int maxAge = sessionDays * 24 * 3600;
    OffsetDateTime expires = OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(maxAge);
    String agent = userAgent == null ? null : userAgent.substring(0, Math.min(userAgent.length(), 300));
    return pool.preparedQuery(PrivateSql.INSERT_SESSION)
        .execute(Tuple.of(UUID.fromString(sessionId), UUID.fromString(person.id()), expires, agent, method))
        .compose(r -> emailOf(person.id()))
        .map(email -> new Issued(jwt.generateToken(
            new JsonObject().put("sub", person.id()).put("sid", sessionId),
            new JWTOptions().setIssuer(ISSUER).setExpiresInSeconds(maxAge)), person, email, maxAge));
  }

  /** The member a token names, if its signature holds, its session is active and the person exists. */
  public Future<Optional<Actor.Member>> resolve(String token) {
    return jwt.authenticate(new TokenCredentials(token))
        .map(user -> Optional.of(user.principal()))
        .otherwise(Optional.empty())
        .compose(principal -> {
          String sid = principal.map(p -> p.getString("sid")).orElse(null);
          if (sid == null || !Ids.isUuid(sid)) {
            return Future.succeededFuture(Optional.empty());
          }
          return pool.preparedQuery(PrivateSql.ACTIVE_SESSION).execute(Tuple.of(UUID.fromString(sid)))
              .map(rows -> {
                if (rows.size() == 0) {
                  return Optional.<Actor.Member>empty();
                }
                Row row = rows.iterator().next();
                // a deactivated account keeps its session (to reactivate itself) but no powers
                return state.current().personById(row.getUUID(0).toString())
                    .filter(p -> !p.isAgentAccount())
                    .map(p -> p.isDeactivated() ? Actor.member(p.withAccountLevel("user", p.updatedAt()), sid)
                        : Actor.member(p, sid));
              });
        });
  }

  /**
   * Ends one session at once, and tells every node (open GraphQL WebSockets of that person check
   * their session again and close).
   */
  public Future<Void> revoke(String sessionId, String personId) {
    return pool.preparedQuery(PrivateSql.REVOKE_SESSION).execute(Tuple.of(UUID.fromString(sessionId)))
        .onSuccess(rows -> vertx.eventBus().publish(Addresses.PEOPLE_SESSIONS_ENDED,
            new JsonObject().put("personId", personId)))
        .mapEmpty();
  }

  public Future<String> emailOf(String personId) {
    return pool.preparedQuery(PrivateSql.EMAIL_OF).execute(Tuple.of(UUID.fromString(personId)))
        .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString(0));
  }
}
