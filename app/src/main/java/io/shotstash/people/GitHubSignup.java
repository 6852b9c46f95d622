package io.shotstash.people;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The people side of GitHub sign-in: the write rule that makes a member from a GitHub account
 * (inside the git writer, so its checks see every earlier write), the pending sign-ins between
 * {@code /start} and {@code /callback} (V3__github_oauth.sql) and the GitHub facts of a linked
 * member. The HTTP side is {@code http/GitHubRoutes}.
 */
public final class GitHubSignup {
  /** The write rule's action on {@code publicdata.write}. */
  public static final String ACTION = "person.github-signup";
  /** The {@code Action} trailer of the sign-up commit. */
  public static final String COMMIT_ACTION = "person.signup";
  /** How long a pending sign-in may wait for GitHub's callback. */
  public static final int STATE_TTL_SECONDS = 600;

  private GitHubSignup() {}

  public static WriteHandler handler() {
    return WriteHandler.of(ACTION, GitHubSignup::plan);
  }

  /** The sign-up command the callback sends, as the system (it has no session yet). */
  public static WriteCommand command(GitHubClient.User user, String email, Instant checkedAt, String path) {
    return new WriteCommand(ACTION, Actor.SYSTEM, "GET", path, new JsonObject()
        .put("githubUserId", user.id()).put("githubLogin", user.login()).put("name", user.name())
        .put("email", email).put("github", user.facts(checkedAt)));
  }

  /** The spam-purges record that keeps this GitHub account out, if any. */
  public static Optional<SpamPurge> blockFor(PublicState state, long githubUserId, String login) {
    return OAuthRules.blockFor(state.all(Sheet.SPAM_PURGES, SpamPurge.class), githubUserId, login);
  }

  /** The member linked to this GitHub account (by numeric id; logins change hands). */
  public static Optional<Person> linked(PublicState state, long githubUserId) {
    return state.findOne(Sheet.PEOPLE, "githubUserId", Long.toString(githubUserId), Person.class);
  }

  public static ApiError blockedError() {
    return ApiError.of(403, "account_blocked", "This GitHub account may not sign in here");
  }

  /**
   * Refuses a blocked account; answers the linked member unchanged if one appeared since the
   * callback looked (two callbacks at once); else makes the member and their private profile in
   * one commit and one transaction.
   */
  static Future<WritePlan> plan(WriteContext ctx, WriteCommand cmd) {
    if (!(cmd.actor() instanceof Actor.SystemActor)) {
      return Future.failedFuture(ApiError.forbidden("Only the GitHub callback signs people up").toException());
    }
    JsonObject p = cmd.params();
    Long githubUserId = p.getLong("githubUserId");
    String login = p.getString("githubLogin");
    JsonObject facts = p.getJsonObject("github");
    if (githubUserId == null || githubUserId <= 0 || !OAuthRules.isGitHubLogin(login) || facts == null) {
      return Future.failedFuture(ApiError.validation("github", "must name a GitHub account").toException());
    }
    PublicState state = ctx.state();
    // checked here too, not only in the HTTP layer: a purge that committed a moment ago is seen
    if (blockFor(state, githubUserId, login).isPresent()) {
      return Future.failedFuture(blockedError().toException());
    }
    Optional<Person> existing = linked(state, githubUserId);
    if (existing.isPresent()) {
      String id = existing.get().id();
      return Future.succeededFuture(WritePlan.noChange(s -> reply(s, id, null, false)));
    }
    String slug = OAuthRules.slugFromLogin(login, s -> PersonRules.slugTaken(state, s));
    String fullName = OAuthRules.fullNameFrom(p.getString("name"), login);
    String offered = p.getString("email");
    String email = offered == null || PersonRules.emailProblem(offered) != null ? null
        : PersonRules.normalizeEmail(offered);
    Future<String> freeEmail = email == null ? Future.succeededFuture(null)
        // an address another member already has stays theirs: the new member starts without one
        : ctx.tx().preparedQuery(PrivateSql.EMAIL_TAKEN).execute(Tuple.of(email))
            .map(rows -> rows.size() > 0 ? null : email);
    return freeEmail.map(kept -> {
      Instant now = ctx.now();
      Person person = new Person(Ids.uuid7(), null, slug, fullName, null, null, AccountLevel.USER.wire(), null,
          githubUserId, login, null, null, now, now);
      CommitMessage message = Attribution.actorTrailers(
          Attribution.message(cmd, COMMIT_ACTION, "person", person.id(), person.slug()).body("Signed up with GitHub."),
          cmd.actor()).build();
      return new WritePlan(
          List.of(RecordChange.put(Sheet.PEOPLE, RecordKeys.person(person), person)),
          tx -> tx.preparedQuery(PrivateSql.INSERT_PROFILE_WITH_GITHUB)
              .execute(Tuple.of(UUID.fromString(person.id()), kept, facts)),
          message,
          s -> reply(s, person.id(), kept, true));
    });
  }

  private static JsonObject reply(PublicState state, String personId, String email, boolean created) {
    Person person = state.personById(personId).orElseThrow();
    return new JsonObject().put("created", created).put("person", PersonView.staffJson(person, email))
        .put("githubUserId", person.githubUserId());
  }

  /**
   * The member a sign-up reply names. The writer may run on another node and reply before this
   * node's replica has the record; a session needs only the id, so the reply's fields do then.
   */
  public static Person personFromReply(PublicState state, JsonObject reply) {
    JsonObject json = reply.getJsonObject("person");
    String id = json.getString("id");
    return state.personById(id).orElseGet(() -> new Person(id, null, json.getString("slug"), json.getString("fullName"),
        null, null, json.getString("accountLevel"), null, reply.getLong("githubUserId"), json.getString("githubLogin"),
        null, null, null, null));
  }

  // ---- pending sign-ins ----

  /** A pending sign-in, as {@code /callback} takes it back. */
  public record Pending(String verifier, String returnPath) {}

  /** Keeps a pending sign-in under the SHA-256 of its state (the state itself is never stored). */
  public static Future<Void> remember(Pool pool, byte[] stateHash, String verifier, String returnPath) {
    return pool.preparedQuery(PrivateSql.REMEMBER_STATE)
        .execute(Tuple.of(Buffer.buffer(stateHash), verifier, returnPath)).mapEmpty();
  }

  /** The pending sign-in of this state, once: empty when unknown, expired or already used. */
  public static Future<Optional<Pending>> take(Pool pool, byte[] stateHash) {
    return pool.preparedQuery(PrivateSql.TAKE_STATE).execute(Tuple.of(Buffer.buffer(stateHash)))
        .map(rows -> {
          if (rows.size() == 0) {
            return Optional.empty();
          }
          Row row = rows.iterator().next();
          return Optional.of(new Pending(row.getString("verifier"), row.getString("return_path")));
        });
  }

  /** A linked member signed in again: their private GitHub facts as GitHub states them now. */
  public static Future<Void> refreshFacts(Pool pool, String personId, JsonObject facts) {
    return pool.preparedQuery(PrivateSql.UPSERT_GITHUB_FACTS).execute(Tuple.of(UUID.fromString(personId), facts))
        .mapEmpty();
  }
}
