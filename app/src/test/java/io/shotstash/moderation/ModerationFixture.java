package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A small public state built record by record, for the tables of the moderation rule tests. */
final class ModerationFixture {
  static final Instant NOW = Instant.parse("2026-03-20T12:00:00Z");
  /** The agent account that votes and purges; created long before any of its records. */
  static final Person BOT = new Person("id-bot", null, "bot", "Bot", null, null, "user", true, null, null, null, null,
      NOW.minus(Duration.ofDays(90)), NOW.minus(Duration.ofDays(90)));
  static final Actor.Agent AGENT = new Actor.Agent(BOT.id(), BOT.slug(), BOT.fullName(), "grant-1",
      Set.of("moderation:vote", "moderation:purge"));

  private final List<RecordChange> records = new ArrayList<>();

  ModerationFixture() {
    person(BOT);
  }

  static Instant ago(Duration d) {
    return NOW.minus(d);
  }

  /** An ordinary signed-up member who joined {@code age} ago. */
  static Person member(String slug, Duration age) {
    return person(slug, "user", null, age, null);
  }

  static Person person(String slug, String level, String legacyId, Duration age, String bio) {
    Instant created = age == null ? null : NOW.minus(age);
    return new Person("id-" + slug, legacyId, slug, "Name " + slug, bio, null, level, null, null, null, null, null,
        created, created);
  }

  ModerationFixture person(Person p) {
    return put(Sheet.PEOPLE, p.slug(), p);
  }

  ModerationFixture vote(String slug, String evaluator, String verdict, Duration ago, String... flags) {
    PersonEvaluation e =
        new PersonEvaluation(slug, evaluator, verdict, "because", List.of(flags), null, NOW.minus(ago));
    return put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(e), e);
  }

  ModerationFixture purge(String id, String slug, String by, Duration ago) {
    SpamPurge p = new SpamPurge(id, "id-gone-" + id, slug, "Gone", null, null, by, null, "spam", List.of(), List.of(),
        "abc", NOW.minus(ago), true, null, null);
    return put(Sheet.SPAM_PURGES, RecordKeys.spamPurge(p), p);
  }

  ModerationFixture put(Sheet sheet, String key, Object record) {
    records.add(RecordChange.put(sheet, key, record));
    return this;
  }

  PublicState state() {
    return PublicState.empty().apply("c1", records);
  }
}
