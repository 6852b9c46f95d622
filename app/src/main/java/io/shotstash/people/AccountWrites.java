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
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The write rules for accounts: first-run setup, an administrator creating a person, and changing
 * a person's account level. Each runs inside the git writer (see {@link WriteHandler}).
 */
public final class AccountWrites {
  public static final String SETUP = "setup.administrator";
  public static final String CREATE = "person.create";
  public static final String ACCOUNT_LEVEL = "person.account-level";

  private AccountWrites() {}

  public static List<WriteHandler> handlers() {
    return List.of(WriteHandler.of(SETUP, AccountWrites::setup), WriteHandler.of(CREATE, AccountWrites::create),
        WriteHandler.of(ACCOUNT_LEVEL, AccountWrites::changeLevel));
  }

  /** Params shared by setup and create: slug, fullName, email (normalised), passwordHash?, accountLevel. */
  public static JsonObject newAccountParams(String slug, String fullName, String email, String passwordHash,
      AccountLevel level) {
    return new JsonObject().put("slug", slug).put("fullName", fullName.strip())
        .put("email", PersonRules.normalizeEmail(email)).put("passwordHash", passwordHash)
        .put("accountLevel", level.wire());
  }

  /** POST /api/setup: the first administrator. Refused once an administrator exists. */
  private static Future<WritePlan> setup(WriteContext ctx, WriteCommand command) {
    if (ctx.state().setupDone()) {
      return Future.failedFuture(ApiError.conflict("conflict", "Setup is already done").toException());
    }
    return createAccount(ctx, command, SETUP);
  }

  /** POST /api/people: administrators create accounts. */
  private static Future<WritePlan> create(WriteContext ctx, WriteCommand command) {
    if (!isAdministrator(ctx.state(), command.actor())) {
      return Future.failedFuture(ApiError.forbidden("Only administrators create accounts").toException());
    }
    return createAccount(ctx, command, CREATE);
  }

  private static Future<WritePlan> createAccount(WriteContext ctx, WriteCommand command, String action) {
    JsonObject p = command.params();
    String slug = p.getString("slug");
    String email = p.getString("email");
    if (PersonRules.slugTaken(ctx.state(), slug)) {
      return Future.failedFuture(ApiError.validation("slug", "is taken").toException());
    }
    return ctx.tx().preparedQuery(PrivateSql.EMAIL_TAKEN).execute(Tuple.of(email)).compose(rows -> {
      if (rows.size() > 0) {
        return Future.failedFuture(ApiError.validation("email", "is taken").toException());
      }
      Instant now = ctx.now();
      Person person = new Person(Ids.uuid7(), null, slug, p.getString("fullName"), null, null,
          p.getString("accountLevel"), null, null, null, null, null, now, now);
      String hash = p.getString("passwordHash");
      CommitMessage message = Attribution.actorTrailers(
          Attribution.message(command, action, "person", person.id(), person.slug()), command.actor()).build();
      return Future.succeededFuture(new WritePlan(
          List.of(RecordChange.put(Sheet.PEOPLE, RecordKeys.person(person), person)),
          tx -> insertPrivate(tx, person.id(), email, hash),
          message,
          state -> new JsonObject().put("person",
              PersonView.staffJson(state.personById(person.id()).orElseThrow(), email))));
    });
  }

  private static Future<?> insertPrivate(SqlConnection tx, String personId, String email, String hash) {
    UUID id = UUID.fromString(personId);
    Future<?> profile = tx.preparedQuery(PrivateSql.INSERT_PROFILE).execute(Tuple.of(id, email));
    return hash == null ? profile
        : profile.compose(r -> tx.preparedQuery(PrivateSql.UPSERT_PASSWORD).execute(Tuple.of(id, hash)));
  }

  /** POST /api/people/:slug/account-level: never leaves the site without an administrator. */
  private static Future<WritePlan> changeLevel(WriteContext ctx, WriteCommand command) {
    PublicState state = ctx.state();
    if (!isAdministrator(state, command.actor())) {
      return Future.failedFuture(ApiError.forbidden("Only administrators change account levels").toException());
    }
    Person target = state.personBySlug(command.params().getString("slug")).orElse(null);
    if (target == null) {
      return Future.failedFuture(ApiError.notFound().toException());
    }
    AccountLevel level = AccountLevel.parse(command.params().getString("level")).orElse(null);
    if (level == null) {
      return Future.failedFuture(
          ApiError.validation("level", "must be one of user, editor, staff, administrator").toException());
    }
    if (target.isAgentAccount() && level != AccountLevel.USER) {
      return Future.failedFuture(ApiError.validation("level", "an agent account stays at user").toException());
    }
    JsonObject unchanged = new JsonObject().put("person", PersonView.staffJson(target, null));
    if (target.level() == level) {
      return Future.succeededFuture(WritePlan.noChange(s -> unchanged));
    }
    Optional<AccountProtection.Refusal> lastAdministrator = AccountProtection.levelChange(target, level,
        state.countActive(AccountLevel.ADMINISTRATOR));
    if (lastAdministrator.isPresent()) {
      return Future.failedFuture(lastAdministrator.get().error().toException());
    }
    Person changed = target.withAccountLevel(level.wire(), ctx.now());
    CommitMessage message = Attribution.actorTrailers(
        Attribution.message(command, "person.account-level", "person", target.id(), target.slug())
            .body("account level: " + target.accountLevel() + " -> " + level.wire()),
        command.actor()).build();
    return Future.succeededFuture(new WritePlan(
        List.of(RecordChange.put(Sheet.PEOPLE, RecordKeys.person(changed), changed)),
        null, message,
        s -> new JsonObject().put("person", PersonView.staffJson(s.personById(target.id()).orElseThrow(), null))));
  }

  /** Reads the actor's level from the live record: a demoted administrator loses the power at once. */
  static boolean isAdministrator(PublicState state, Actor actor) {
    return actor instanceof Actor.Member m && state.personById(m.personId())
        .filter(p -> !p.isDeactivated() && p.level() == AccountLevel.ADMINISTRATOR).isPresent();
  }
}
