package io.shotstash.community;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.AccountProtection;
import io.shotstash.people.PersonView;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.shotstash.purge.AccountVotes;
import io.shotstash.purge.PurgeWrite;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The write rules of a person's own record: edit (name, bio, slug), deactivate and reactivate,
 * and the staff purge. Each runs inside the git writer.
 */
public final class PeopleWrites {
  public static final String UPDATE = "person.update";
  public static final String DEACTIVATE = "person.deactivate";
  public static final String REACTIVATE = "person.reactivate";
  public static final String PURGE = PurgeWrite.ACTION;
  public static final String AVATAR = "person.avatar";
  public static final int BIO_MAX = 5000;
  /** The staff purge's reason: it is the commit body. */
  public static final TextLength PURGE_REASON = new TextLength(1, 1000);

  private PeopleWrites() {}

  public static List<WriteHandler> handlers() {
    return List.of(WriteHandler.of(UPDATE, PeopleWrites::update), WriteHandler.of(DEACTIVATE, PeopleWrites::deactivate),
        WriteHandler.of(REACTIVATE, PeopleWrites::reactivate), WriteHandler.of(PURGE, PeopleWrites::purge),
        WriteHandler.of(AVATAR, PeopleWrites::avatar));
  }

  static CommitMessage message(WriteCommand cmd, String action, Person subject, String body) {
    return Attribution
        .actorTrailers(Attribution.message(cmd, action, "person", subject.id(), subject.slug()).body(body),
            cmd.actor())
        .build();
  }

  static Person with(Person p, String slug, String fullName, String bio, Instant deletedAt, String deactivatedBy,
      Instant now) {
    return new Person(p.id(), p.legacyId(), slug, fullName, bio, p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), deletedAt, deactivatedBy, p.createdAt(), now);
  }

  /** Whether a slug carries history that a rename must not take over (docs/community-api.md → PATCH /api/people/:slug). */
  public static boolean slugHasHistory(PublicState state, String slug) {
    String lower = slug.toLowerCase();
    return !state.findKeys(Sheet.SPAM_PURGES, "slug", lower).isEmpty()
        || !state.findKeys(Sheet.PERSON_EVALUATIONS, "personSlug", lower).isEmpty();
  }

  // ---- PATCH /api/people/:slug ----

  static Future<WritePlan> update(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    JsonObject p = cmd.params();
    Person person = state.personBySlug(p.getString("slug")).orElse(null);
    if (person == null || !(Rules.isSelf(cmd.actor(), person) || Rules.isStaff(state, cmd.actor()))) {
      return Rules.refuse(ApiError.notFound());
    }
    String fullName = p.containsKey("fullName") ? p.getString("fullName").strip() : person.fullName();
    String bio = p.containsKey("bio") ? emptyToNull(p.getString("bio")) : person.bio();
    String newSlug = p.containsKey("newSlug") ? p.getString("newSlug") : person.slug();
    List<RecordChange> changes = new ArrayList<>();
    if (!newSlug.equals(person.slug())) {
      if (state.personBySlug(newSlug).filter(other -> !other.id().equals(person.id())).isPresent()) {
        return Rules.refuse(ApiError.validation("slug", "is taken"));
      }
      if (slugHasHistory(state, newSlug)) {
        return Rules.refuse(ApiError.conflict("slug_unavailable",
            "That slug has moderation history and cannot be taken by a rename"));
      }
      changes.addAll(renameChanges(state, person, newSlug));
    }
    Person updated = with(person, newSlug, fullName, bio, person.deletedAt(), person.deactivatedBy(), ctx.now());
    if (updated.equals(with(person, person.slug(), person.fullName(), person.bio(), person.deletedAt(),
        person.deactivatedBy(), ctx.now())) && changes.isEmpty()) {
      return Future.succeededFuture(WritePlan.noChange(s -> personReply(s, person.id())));
    }
    changes.add(RecordChange.put(Sheet.PEOPLE, newSlug, updated));
    return Future.succeededFuture(new WritePlan(changes, null,
        message(cmd, UPDATE, updated,
            newSlug.equals(person.slug()) ? null : "slug: " + person.slug() + " -> " + newSlug),
        s -> personReply(s, person.id())));
  }

  /**
   * A rename moves the person's file and every record whose path names the slug: memberships,
   * help-wanted interest, and the person-evaluations (so the account keeps its moderation record).
   */
  static List<RecordChange> renameChanges(PublicState state, Person person, String newSlug) {
    List<RecordChange> out = new ArrayList<>();
    out.add(RecordChange.delete(Sheet.PEOPLE, person.slug()));
    for (String key : state.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", person.id())) {
      ProjectMembership m = state.get(Sheet.PROJECT_MEMBERSHIPS, key, ProjectMembership.class);
      ProjectMembership moved = new ProjectMembership(m.projectId(), m.personId(), m.projectSlug(), newSlug, m.role(),
          m.isMaintainer(), m.joinedAt());
      out.add(RecordChange.delete(Sheet.PROJECT_MEMBERSHIPS, key));
      out.add(RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(moved), moved));
    }
    for (String key : state.findKeys(Sheet.HELP_WANTED_INTEREST, "personId", person.id())) {
      HelpWantedInterest i = state.get(Sheet.HELP_WANTED_INTEREST, key, HelpWantedInterest.class);
      out.add(RecordChange.delete(Sheet.HELP_WANTED_INTEREST, key));
      out.add(RecordChange.put(Sheet.HELP_WANTED_INTEREST, RecordKeys.helpWantedInterest(i, newSlug), i));
    }
    // only this account's votes move with it; an earlier account's stay under the slug as the record of why
    for (PersonEvaluation e : AccountVotes.of(state, person).counting()) {
      String key = RecordKeys.evaluation(e);
      PersonEvaluation moved = new PersonEvaluation(newSlug, e.evaluator(), e.verdict(), e.reasoning(), e.flags(),
          e.confidence(), e.evaluatedAt());
      out.add(RecordChange.delete(Sheet.PERSON_EVALUATIONS, key));
      out.add(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(moved), moved));
    }
    return out;
  }

  // ---- the avatar ----

  /**
   * {slug, avatarKey (null clears)}: the person or staff set the avatar the HTTP layer stored. The
   * replaced file is deleted once the commit stands; a refused change orphans the new file instead
   * (the caller deletes it).
   */
  static Future<WritePlan> avatar(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Person person = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    if (person == null || !(Rules.isSelf(cmd.actor(), person) || Rules.isStaff(state, cmd.actor()))) {
      return Rules.refuse(ApiError.notFound());
    }
    String key = cmd.params().getString("avatarKey");
    Person updated = new Person(person.id(), person.legacyId(), person.slug(), person.fullName(), person.bio(), key,
        person.accountLevel(), person.agent(), person.githubUserId(), person.githubLogin(), person.deletedAt(),
        person.deactivatedBy(), person.createdAt(), ctx.now());
    List<String> orphaned = person.avatarKey() == null || person.avatarKey().equals(key) ? List.of()
        : List.of(io.shotstash.media.Storage.avatarKey(person.avatarKey()));
    return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PEOPLE, person.slug(), updated)), null,
        message(cmd, AVATAR, updated, key == null ? "avatar removed" : null), s -> personReply(s, person.id()))
        .orphaning(orphaned));
  }

  // ---- deactivate / reactivate ----

  static Future<WritePlan> deactivate(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Person person = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    boolean self = person != null && Rules.isSelf(cmd.actor(), person);
    if (person == null || !(self || Rules.isStaff(state, cmd.actor()))) {
      return Rules.refuse(ApiError.notFound());
    }
    if (person.isDeactivated()) {
      return Future.succeededFuture(WritePlan.noChange(s -> personReply(s, person.id())));
    }
    AccountLevel callerLevel = Rules.live(state, cmd.actor()).map(Person::level).orElse(AccountLevel.USER);
    Optional<AccountProtection.Refusal> refused = AccountProtection.deactivate(callerLevel, self, person,
        state.countActive(AccountLevel.ADMINISTRATOR));
    if (refused.isPresent()) {
      return Rules.refuse(refused.get().error());
    }
    Person hidden =
        with(person, person.slug(), person.fullName(), person.bio(), ctx.now(), self ? "self" : "staff", ctx.now());
    return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PEOPLE, person.slug(), hidden)), null,
        message(cmd, DEACTIVATE, hidden, null), s -> personReply(s, person.id())));
  }

  static Future<WritePlan> reactivate(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Person person = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    boolean self = person != null && Rules.isSelf(cmd.actor(), person);
    boolean staff = Rules.isStaff(state, cmd.actor());
    if (person == null || !(self || staff)) {
      return Rules.refuse(ApiError.notFound());
    }
    if (!person.isDeactivated()) {
      return Future.succeededFuture(WritePlan.noChange(s -> personReply(s, person.id())));
    }
    if (!staff && "moderation".equals(person.deactivatedBy())) {
      return Rules.refuse(ApiError.forbidden("A member hidden by moderation cannot reactivate themselves"));
    }
    Person shown = with(person, person.slug(), person.fullName(), person.bio(), null, null, ctx.now());
    return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PEOPLE, person.slug(), shown)), null,
        message(cmd, REACTIVATE, shown, null), s -> personReply(s, person.id())));
  }

  // ---- the staff purge ----

  /** {slug, reason, spam}: administrators; the whole cascade in one commit and one transaction. */
  static Future<WritePlan> purge(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    if (!Rules.isAdministrator(state, cmd.actor())) {
      return Rules.refuse(ApiError.notFound());
    }
    Person person = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    if (person == null) {
      return Rules.refuse(ApiError.notFound());
    }
    if (Rules.isSelf(cmd.actor(), person)) {
      return Rules.refuse(ApiError.validation("slug", "you cannot purge yourself"));
    }
    Optional<AccountProtection.Refusal> lastAdministrator = AccountProtection.purge(person,
        state.countActive(AccountLevel.ADMINISTRATOR));
    if (lastAdministrator.isPresent()) {
      return Rules.refuse(lastAdministrator.get().error());
    }
    boolean spam = cmd.params().getBoolean("spam", true);
    String reason = cmd.params().getString("reason");
    Actor.Member admin = (Actor.Member) cmd.actor();
    return Future.succeededFuture(PurgeWrite.plan(ctx, cmd, person, spam ? "human-" + admin.slug() : null, null, reason,
        List.of(), List.of(), List.of()));
  }

  static JsonObject personReply(PublicState state, String personId) {
    return new JsonObject().put("person",
        state.personById(personId).map(p -> PersonView.staffJson(p, null)).orElse(null));
  }

  static String emptyToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  /** Checks shared with the HTTP layer for a PATCH body. */
  public static String bioProblem(String bio) {
    return bio != null && bio.length() > BIO_MAX ? "must be at most " + BIO_MAX + " characters" : null;
  }
}
