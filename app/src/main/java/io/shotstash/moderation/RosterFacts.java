package io.shotstash.moderation;

import static io.shotstash.bus.Json.iso;

import io.shotstash.people.PrivateSql;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What the roster reads from PostgreSQL (every statement in {@code people/PrivateSql}): the email
 * index, everyone's last sign-in when the roster is sorted by it, and the private facts of one
 * page of people, re-probed on GitHub when stale. One per {@link ModerationVerticle}, used on its
 * event loop only.
 */
final class RosterFacts {
  private final Pool pool;
  private final GitHubProbe probe;
  /** The roster index last built (one event loop reads and replaces it). */
  private RosterIndex index;
  /** person id → email, for the people of the index (see {@link #index}). */
  private final Map<UUID, String> emails = new HashMap<>();
  /** The people whose email (or its absence) is in {@link #emails}. */
  private final Set<UUID> lookedUp = new HashSet<>();

  RosterFacts(Pool pool, GitHubProbe probe) {
    this.pool = pool;
    this.probe = probe;
  }

  /**
   * The roster index of {@code state}'s people, built again only when they changed, with the emails
   * of the people it holds. An email is written once, with the profile, in the same write command
   * (and PostgreSQL transaction) that creates the person, and never changed (docs/moderation-api.md);
   * so the emails are read once, then only for people this verticle has not looked up yet.
   */
  Future<RosterIndex> index(PublicState state) {
    RosterIndex current = index;
    if (current != null && current.isFor(state)) {
      return Future.succeededFuture(current);
    }
    List<UUID> unknown = new ArrayList<>();
    Set<UUID> present = new HashSet<>();
    for (Person p : state.all(Sheet.PEOPLE, Person.class)) {
      UUID id = RosterIndex.uuid(p.id());
      if (id != null) {
        present.add(id);
        if (!lookedUp.contains(id)) {
          unknown.add(id);
        }
      }
    }
    Future<RowSet<Row>> rows = unknown.isEmpty() ? Future.succeededFuture(null)
        : lookedUp.isEmpty() ? pool.query(PrivateSql.ALL_EMAILS).execute()
            : pool.preparedQuery(PrivateSql.EMAILS_OF).execute(Tuple.of((Object) unknown.toArray(UUID[]::new)));
    return rows.map(found -> {
      if (found != null) {
        found.forEach(r -> emails.put(r.getUUID(0), r.getString(1)));
      }
      lookedUp.addAll(unknown);
      lookedUp.retainAll(present); // purged people
      emails.keySet().retainAll(present);
      RosterIndex built = RosterIndex.of(state, emails);
      index = built;
      return built;
    });
  }

  /** person id → last sign-in, read only when {@code needed} (the roster sorted by it). */
  Future<Map<String, Instant>> lastLogins(boolean needed) {
    if (!needed) {
      return Future.succeededFuture(Map.of());
    }
    return pool.query(PrivateSql.LAST_LOGINS).execute().map(rows -> {
      Map<String, Instant> m = new HashMap<>();
      rows.forEach(r -> m.put(r.getUUID(0).toString(), r.getOffsetDateTime(1).toInstant()));
      return m;
    });
  }

  /**
   * person id → {email, github, lastSlackSsoAt, emailBounce, lastLoginAt, signInCount} for one page
   * of people; GitHub facts stale at {@code now} are probed again (and the probe's answer replaces them).
   */
  Future<Map<String, JsonObject>> ofPage(List<Person> page, Instant now) {
    UUID[] ids = page.stream().map(p -> UUID.fromString(p.id())).toArray(UUID[]::new);
    return privateFacts(ids).compose(facts -> {
      List<GitHubProbe.Target> stale = new ArrayList<>();
      for (Person p : page) {
        if (p.githubUserId() != null) {
          JsonObject github = facts.getOrDefault(p.id(), new JsonObject()).getJsonObject("github");
          if (GitHubProbe.stale(github, now)) {
            stale.add(new GitHubProbe.Target(p.id(), p.githubUserId(), github));
          }
        }
      }
      return probe.probe(stale).map(probed -> {
        probed.forEach((id, github) -> facts.computeIfAbsent(id, k -> new JsonObject()).put("github", github));
        return facts;
      });
    });
  }

  /** The page's private profiles and sign-ins; both queries at once. */
  private Future<Map<String, JsonObject>> privateFacts(UUID[] ids) {
    Future<RowSet<Row>> profiles = pool.preparedQuery(PrivateSql.ROSTER_PRIVATE_FACTS).execute(Tuple.of((Object) ids));
    Future<RowSet<Row>> sessions = pool.preparedQuery(PrivateSql.ROSTER_SIGN_INS).execute(Tuple.of((Object) ids));
    return Future.all(profiles, sessions).map(v -> {
      Map<String, JsonObject> out = new HashMap<>();
      for (Row r : profiles.result()) {
        out.put(r.getUUID("person_id").toString(), new JsonObject().put("email", r.getString("email"))
            .put("github", json(r.getValue("github")))
            .put("lastSlackSsoAt", iso(r.getOffsetDateTime("last_slack_sso_at")))
            .put("emailBounce", json(r.getValue("email_bounce")))
            .put("lastLoginAt", iso(r.getOffsetDateTime("last_login")))
            .put("signInCount", r.getLong("sign_ins")));
      }
      // sign-ins of people with no private profile (agents never sign in; this is for completeness)
      for (Row r : sessions.result()) {
        out.computeIfAbsent(r.getUUID("person_id").toString(), k -> new JsonObject())
            .put("lastLoginAt", iso(r.getOffsetDateTime("last_login"))).put("signInCount", r.getLong("sign_ins"));
      }
      return out;
    });
  }

  private static JsonObject json(Object v) {
    return v instanceof JsonObject o ? o : null;
  }
}
