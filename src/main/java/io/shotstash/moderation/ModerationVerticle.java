package io.shotstash.moderation;

import io.shotstash.agents.Grants;
import io.shotstash.bus.ActionDispatcher;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.people.PersonView;
import io.shotstash.people.PrivateSql;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import io.shotstash.purge.AccountVotes;
import io.shotstash.purge.SpamPurgeView;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The moderation reads (address {@code moderation}): the roster, one member's detail, the
 * spam-purge log and the agents with their accuracy. Public facts come from this node's
 * {@link PublicState}; private ones (email, GitHub facts, sign-ins) from PostgreSQL, for the rows
 * of the requested page only.
 */
public final class ModerationVerticle extends VerticleBase {

  /** Action header values. */
  public static final class Actions {
    private Actions() {}

    public static final String ROSTER = "roster";
    public static final String DETAIL = "detail";
    public static final String PURGES = "spam-purges";
    public static final String AGENTS = "agents";
  }

  private final Pool pool;
  private final PublicStateHolder holder;
  private final GitHubProbe probe;
  private final String webUrl;
  private final String branch;
  /** This verticle's roster index (one event loop reads and replaces it). */
  private RosterIndex index;
  /** person id → email, for the people of the index (see {@link #rosterIndex}). */
  private final Map<UUID, String> emails = new HashMap<>();
  /** The people whose email (or its absence) is in {@link #emails}. */
  private final Set<UUID> lookedUp = new HashSet<>();

  public ModerationVerticle(Pool pool, PublicStateHolder holder, GitHubProbe probe, String dataRepoWebUrl, String branch) {
    this.pool = pool;
    this.holder = holder;
    this.probe = probe;
    this.webUrl = dataRepoWebUrl;
    this.branch = branch;
  }

  @Override
  public Future<?> start() {
    return new ActionDispatcher(Addresses.MODERATION)
        .on(Actions.ROSTER, this::roster)
        .on(Actions.DETAIL, this::detail)
        .on(Actions.PURGES, this::purges)
        .on(Actions.AGENTS, this::agents)
        .register(vertx);
  }

  // ---- the roster ----

  /** {query, agent} → {rows, page, perPage, totalItems}. */
  private Future<JsonObject> roster(JsonObject msg) {
    RosterQuery query = RosterQuery.fromJson(msg.getJsonObject("query"));
    boolean agent = msg.getBoolean("agent", false);
    PublicState state = holder.current();
    Future<Map<String, Instant>> lastLogins = !"lastLoginAt".equals(query.sort()) ? Future.succeededFuture(Map.of())
        : pool.query(PrivateSql.LAST_LOGINS).execute().map(rows -> {
          Map<String, Instant> m = new HashMap<>();
          rows.forEach(r -> m.put(r.getUUID(0).toString(), r.getOffsetDateTime(1).toInstant()));
          return m;
        });
    return Future.all(rosterIndex(state), lastLogins, Grants.agentsWithActiveGrant(pool)).compose(all -> {
      RosterIndex index = all.resultAt(0);
      Map<String, Instant> logins = all.resultAt(1);
      Set<String> activeAgents = slugs(state, all.resultAt(2));
      List<Person> matching = index.matching(state, query, agent, logins);
      int from = (int) Math.min((long) (query.page() - 1) * query.perPage(), matching.size());
      List<Person> page = matching.subList(from, Math.min(from + query.perPage(), matching.size()));
      return rows(state, page, agent, activeAgents).map(rows -> new JsonObject().put("rows", rows)
          .put("page", query.page()).put("perPage", query.perPage()).put("totalItems", matching.size()));
    });
  }

  /**
   * The roster index of {@code state}'s people, built again only when they changed, with the emails
   * of the people it holds. An email is written once, with the profile, in the same write command
   * (and PostgreSQL transaction) that creates the person, and never changed (docs/moderation-api.md);
   * so the emails are read once, then only for people this verticle has not looked up yet.
   */
  private Future<RosterIndex> rosterIndex(PublicState state) {
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

  private static Set<String> slugs(PublicState state, Set<String> personIds) {
    Set<String> out = new HashSet<>();
    personIds.forEach(id -> state.personById(id).ifPresent(p -> out.add(p.slug())));
    return out;
  }

  /** The rows of one page: private facts for those people only, re-probed on GitHub when stale. */
  private Future<JsonArray> rows(PublicState state, List<Person> page, boolean agent, Set<String> activeAgents) {
    UUID[] ids = page.stream().map(p -> UUID.fromString(p.id())).toArray(UUID[]::new);
    return privateFacts(ids).compose(facts -> {
      Instant now = Instant.now();
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
        JsonArray rows = new JsonArray();
        for (Person p : page) {
          JsonObject f = facts.getOrDefault(p.id(), new JsonObject());
          if (probed.containsKey(p.id())) {
            f.put("github", probed.get(p.id()));
          }
          rows.add(row(state, p, f, agent, activeAgents, now));
        }
        return rows;
      });
    });
  }

  /** person id → {email, github, lastSlackSsoAt, emailBounce, lastLoginAt, signInCount}; both queries at once. */
  private Future<Map<String, JsonObject>> privateFacts(UUID[] ids) {
    Future<RowSet<Row>> profiles = pool.preparedQuery(PrivateSql.ROSTER_PRIVATE_FACTS).execute(Tuple.of((Object) ids));
    Future<RowSet<Row>> sessions = pool.preparedQuery(PrivateSql.ROSTER_SIGN_INS).execute(Tuple.of((Object) ids));
    return Future.all(profiles, sessions).map(v -> {
      Map<String, JsonObject> out = new HashMap<>();
      for (Row r : profiles.result()) {
        out.put(r.getUUID("person_id").toString(), new JsonObject().put("email", r.getString("email"))
            .put("github", json(r.getValue("github"))).put("lastSlackSsoAt", iso(r.getOffsetDateTime("last_slack_sso_at")))
            .put("emailBounce", json(r.getValue("email_bounce"))).put("lastLoginAt", iso(r.getOffsetDateTime("last_login")))
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

  static JsonObject json(Object v) {
    return v instanceof JsonObject o ? o : null;
  }

  static String iso(OffsetDateTime t) {
    return t == null ? null : t.toInstant().toString();
  }

  static Instant instant(String iso) {
    try {
      return iso == null ? null : Instant.parse(iso.length() == 10 ? iso + "T00:00:00Z" : iso);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private JsonObject row(PublicState state, Person p, JsonObject f, boolean agent, Set<String> activeAgents, Instant now) {
    AccountVotes votes = AccountVotes.of(state, p);
    JsonObject footprint = footprintCounts(state, p);
    String email = f.getString("email");
    JsonObject github = f.getJsonObject("github");
    JsonObject bounce = f.getJsonObject("emailBounce");
    boolean hasFootprint = footprint.getInteger("memberships") + footprint.getInteger("updates") + footprint.getInteger("buzz")
        + footprint.getInteger("blogPosts") + footprint.getInteger("helpWantedInterest") > 0;
    Signals.Result signals = Signals.of(new Signals.Facts(f.getLong("signInCount", 0L) > 0, p.avatarKey() != null, p.bio(),
        email, p.fullName(), bounce == null ? null : bounce.getString("type"), github == null ? null : github.getString("status"),
        github == null ? null : instant(github.getString("accountCreatedAt")),
        github == null ? null : github.getInteger("publicRepos"), github == null ? null : github.getInteger("followers"),
        votes.slugPurgedBefore(), f.getString("lastSlackSsoAt") != null, hasFootprint), now);
    Instant purgeAfter = votes.purgeAfter(activeAgents);
    JsonObject githubJson = p.githubUserId() == null ? null : (github == null
        ? new JsonObject().put("login", p.githubLogin()).put("status", "unknown") : github.copy());
    return new JsonObject().put("id", p.id()).put("slug", p.slug()).put("fullName", p.fullName())
        .put("avatarUrl", p.avatarKey() == null ? null : "/media/avatars/" + p.avatarKey())
        .put("createdAt", iso(p.createdAt())).put("deletedAt", iso(p.deletedAt())).put("deactivatedBy", p.deactivatedBy())
        .put("origin", p.legacyId() != null ? "imported" : "signed-up")
        .put("email", agent ? null : email)
        .put("emailDomain", email == null || email.indexOf('@') < 0 ? null : email.substring(email.indexOf('@') + 1))
        .put("hasGitHubLink", p.githubUserId() != null).put("github", githubJson)
        .put("lastLoginAt", f.getString("lastLoginAt")).put("signInCount", f.getLong("signInCount", 0L))
        .put("lastSlackSsoAt", f.getString("lastSlackSsoAt")).put("emailBounce", bounce)
        .put("bioExcerpt", Signals.bioExcerpt(p.bio())).put("footprint", footprint)
        .put("latestVote", votes.latestVote().map(e -> ModerationViews.latestVote(state, e)).orElse(null))
        .put("stagedVote", votes.stagedVote().map(e -> ModerationViews.stagedVote(state, e, activeAgents.contains(e.voterSlug())))
            .orElse(null))
        .put("purgeAfter", iso(purgeAfter)).put("signals", new JsonArray(signals.signals()))
        .put("attention", signals.attention());
  }

  static String iso(Instant t) {
    return t == null ? null : t.toString();
  }

  static JsonObject footprintCounts(PublicState state, Person p) {
    return new JsonObject()
        .put("memberships", state.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", p.id()).size())
        .put("updates", state.findKeys(Sheet.PROJECT_UPDATES, "authorId", p.id()).size())
        .put("buzz", state.findKeys(Sheet.PROJECT_BUZZ, "postedById", p.id()).size())
        .put("blogPosts", state.findKeys(Sheet.BLOG_POSTS, "authorId", p.id()).size())
        .put("helpWantedInterest", state.findKeys(Sheet.HELP_WANTED_INTEREST, "personId", p.id()).size())
        .put("tags", state.findKeys(Sheet.TAG_ASSIGNMENTS, "taggable", "person:" + p.id()).size());
  }

  // ---- one member ----

  /** {slug, agent} → the row plus footprint lists, votes, earlierVotes, earlierPurges. */
  private Future<JsonObject> detail(JsonObject msg) {
    PublicState state = holder.current();
    boolean agent = msg.getBoolean("agent", false);
    Person p = state.personBySlug(msg.getString("slug")).filter(x -> !x.isAgentAccount()).orElse(null);
    if (p == null) {
      return Future.failedFuture(ApiError.notFound().toException());
    }
    return Grants.agentsWithActiveGrant(pool).compose(active -> rows(state, List.of(p), agent, slugs(state, active)))
        .map(rows -> {
          JsonObject row = rows.getJsonObject(0);
          AccountVotes votes = AccountVotes.of(state, p);
          JsonObject person = PersonView.staffJson(p, agent ? null : row.getString("email"));
          if (agent) {
            person.remove("email");
          }
          JsonArray counting = new JsonArray();
          votes.counting().forEach(e -> counting.add(ModerationViews.vote(state, e)));
          JsonArray earlier = new JsonArray();
          votes.earlier().forEach(e -> earlier.add(ModerationViews.vote(state, e)));
          JsonArray purges = new JsonArray();
          votes.purgesOfSlug().forEach(s -> purges.add(new JsonObject().put("id", s.id())
              .put("purgedAt", iso(s.purgedAt())).put("by", s.by()).put("reason", s.reason())));
          return row.put("person", person).put("footprint", footprintLists(state, p)).put("votes", counting)
              .put("earlierVotes", earlier).put("earlierPurges", purges);
        });
  }

  static JsonObject footprintLists(PublicState state, Person p) {
    JsonArray memberships = new JsonArray();
    for (ProjectMembership m : state.find(Sheet.PROJECT_MEMBERSHIPS, "personId", p.id(), ProjectMembership.class)) {
      Project project = state.get(Sheet.PROJECTS, m.projectSlug(), Project.class);
      memberships.add(new JsonObject().put("project", projectRef(project, m.projectSlug())).put("role", m.role())
          .put("joinedAt", iso(m.joinedAt())));
    }
    JsonArray updates = new JsonArray();
    for (ProjectUpdate u : state.find(Sheet.PROJECT_UPDATES, "authorId", p.id(), ProjectUpdate.class)) {
      Project project = state.findOne(Sheet.PROJECTS, "id", u.projectId(), Project.class).orElse(null);
      updates.add(new JsonObject().put("project", projectRef(project, null)).put("number", u.number())
          .put("title", Signals.bioExcerpt(u.body())).put("postedAt", iso(u.createdAt())));
    }
    JsonArray buzz = new JsonArray();
    for (ProjectBuzz b : state.find(Sheet.PROJECT_BUZZ, "postedById", p.id(), ProjectBuzz.class)) {
      Project project = state.findOne(Sheet.PROJECTS, "id", b.projectId(), Project.class).orElse(null);
      buzz.add(new JsonObject().put("project", projectRef(project, null)).put("slug", b.slug()).put("title", b.headline())
          .put("postedAt", iso(b.publishedAt())));
    }
    JsonArray posts = new JsonArray();
    for (BlogPost bp : state.find(Sheet.BLOG_POSTS, "authorId", p.id(), BlogPost.class)) {
      posts.add(new JsonObject().put("slug", bp.slug()).put("title", bp.title()).put("postedAt", iso(bp.postedAt())));
    }
    JsonArray interest = new JsonArray();
    for (HelpWantedInterest i : state.find(Sheet.HELP_WANTED_INTEREST, "personId", p.id(), HelpWantedInterest.class)) {
      HelpWantedRole role = state.findOne(Sheet.HELP_WANTED_ROLES, "id", i.roleId(), HelpWantedRole.class).orElse(null);
      Project project = role == null ? null : state.findOne(Sheet.PROJECTS, "id", role.projectId(), Project.class).orElse(null);
      interest.add(new JsonObject().put("project", projectRef(project, null))
          .put("role", new JsonObject().put("title", role == null ? null : role.title())).put("createdAt", iso(i.createdAt())));
    }
    JsonArray tags = new JsonArray();
    for (TagAssignment a : state.find(Sheet.TAG_ASSIGNMENTS, "taggable", "person:" + p.id(), TagAssignment.class)) {
      state.findOne(Sheet.TAGS, "id", a.tagId(), Tag.class).ifPresent(t ->
          tags.add(new JsonObject().put("handle", t.namespace() + "." + t.slug()).put("type", t.namespace())));
    }
    return new JsonObject().put("memberships", memberships).put("updates", updates).put("buzz", buzz)
        .put("blogPosts", posts).put("helpWantedInterest", interest).put("tags", tags);
  }

  static JsonObject projectRef(Project p, String slug) {
    return new JsonObject().put("slug", p == null ? slug : p.slug()).put("title", p == null ? null : p.title());
  }

  // ---- the spam-purge log ----

  /** {by?, slug?, since?, blocking?, page, perPage} → {items, totalItems}. */
  private Future<JsonObject> purges(JsonObject msg) {
    PublicState state = holder.current();
    String by = msg.getString("by");
    String slug = msg.getString("slug");
    Instant since = msg.getString("since") == null ? null : Instant.parse(msg.getString("since"));
    Boolean blocking = msg.getBoolean("blocking");
    List<SpamPurge> all = state.all(Sheet.SPAM_PURGES, SpamPurge.class).stream()
        .filter(s -> by == null || matchesBy(s.by(), by))
        .filter(s -> slug == null || slug.equalsIgnoreCase(s.slug()))
        .filter(s -> since == null || (s.purgedAt() != null && !s.purgedAt().isBefore(since)))
        .filter(s -> blocking == null || s.blockInForce() == blocking)
        .sorted(Comparator.comparing(SpamPurge::purgedAt, Comparator.nullsLast(Comparator.reverseOrder()))).toList();
    int page = msg.getInteger("page", 1);
    int perPage = msg.getInteger("perPage", 50);
    int from = (int) Math.min((long) (page - 1) * perPage, all.size());
    JsonArray items = new JsonArray();
    for (SpamPurge s : all.subList(from, Math.min(from + perPage, all.size()))) {
      JsonObject item = SpamPurgeView.json(s).put("byRef", byRef(state, s.by()))
          .put("commitUrl", webUrl == null ? null : webUrl + "/commits/" + branch + "/" + Sheet.SPAM_PURGES.path(s.id()));
      JsonArray evidence = item.getJsonArray("evidence");
      for (int i = 0; i < evidence.size(); i++) {
        JsonObject e = evidence.getJsonObject(i);
        e.put("url", webUrl == null || s.beforeCommit() == null ? null : webUrl + "/blob/" + s.beforeCommit() + "/" + e.getString("path"));
      }
      items.add(item);
    }
    return Future.succeededFuture(new JsonObject().put("items", items).put("totalItems", all.size()));
  }

  static boolean matchesBy(String recordBy, String filter) {
    if (recordBy == null) {
      return false;
    }
    return switch (filter) {
      case "agent" -> recordBy.startsWith("agent-");
      case "human" -> recordBy.startsWith("human-");
      case "scheduled" -> recordBy.equals("scheduled");
      default -> recordBy.equals(filter);
    };
  }

  static JsonObject byRef(PublicState state, String by) {
    if (by == null || by.equals("scheduled")) {
      return new JsonObject().put("kind", "scheduled").put("slug", null).put("fullName", null);
    }
    String kind = by.startsWith("agent-") ? "agent" : "human";
    String slug = by.substring(by.indexOf('-') + 1);
    return new JsonObject().put("kind", kind).put("slug", slug)
        .put("fullName", state.personBySlug(slug).map(Person::fullName).orElse(null));
  }

  // ---- agents and their accuracy ----

  /** {} → {agents: [{person, grants, votesCast, overruled, purges}]}. */
  private Future<JsonObject> agents(JsonObject msg) {
    PublicState state = holder.current();
    List<Person> agents = state.all(Sheet.PEOPLE, Person.class).stream().filter(Person::isAgentAccount)
        .sorted(Comparator.comparing(Person::slug)).toList();
    Grants grants = new Grants(pool, holder);
    List<Future<JsonObject>> rows = new ArrayList<>();
    for (Person a : agents) {
      rows.add(grants.ofAgent(a.id()).map(g -> accuracy(state, a).put("person", PersonView.staffJson(a, null)).put("grants", g)));
    }
    return Future.all(rows).map(all -> new JsonObject().put("agents", new JsonArray(all.list())));
  }

  /**
   * Votes cast, votes a human later overruled (the opposite verdict), and purges: this agent
   * account's, not those of an earlier account under its slug.
   */
  static JsonObject accuracy(PublicState state, Person agent) {
    AgentActivity activity = AgentActivity.of(state, agent);
    int cast = 0;
    int overruled = 0;
    for (PersonEvaluation e : activity.votes()) {
      cast++;
      Person member = state.personBySlug(e.personSlug()).orElse(null);
      if (member != null) {
        AccountVotes votes = AccountVotes.of(state, member);
        if (votes.counting().contains(e) && votes.latestVote().filter(h -> h.evaluatedAt().isAfter(e.evaluatedAt())
            && !h.verdict().equals(e.verdict())).isPresent()) {
          overruled++;
        }
      }
    }
    long purges = activity.purges().size();
    return new JsonObject().put("votesCast", cast).put("overruled", overruled).put("purges", purges);
  }
}
