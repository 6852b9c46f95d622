package io.shotstash.moderation;

import static io.shotstash.bus.Json.iso;

import io.shotstash.people.PersonView;
import io.shotstash.publicdata.PublicState;
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
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Set;

/**
 * The JSON the moderation API answers (docs/moderation-api.md): votes, a roster row, one member's
 * detail, a spam-purge log item and an agent's accuracy. Built from the public state and the
 * private facts {@link RosterFacts} read; no I/O.
 */
public final class ModerationViews {
  private ModerationViews() {}

  // ---- votes ----

  static JsonObject voter(PublicState state, String slug) {
    Person p = state.personBySlug(slug).orElse(null);
    return new JsonObject().put("slug", slug).put("fullName", p == null ? null : p.fullName());
  }

  /** One vote in the detail's votes list: kind human or agent from the evaluator prefix. */
  public static JsonObject vote(PublicState state, PersonEvaluation e) {
    return new JsonObject().put("kind", e.isAgent() ? "agent" : "human").put("verdict", e.verdict())
        .put("reasoning", e.reasoning()).put("flags", new JsonArray(e.flags()))
        .put("voter", voter(state, e.voterSlug()))
        .put("evaluatedAt", iso(e.evaluatedAt()));
  }

  /** latestVote on a roster row: a human's vote. */
  public static JsonObject latestVote(PublicState state, PersonEvaluation e) {
    return new JsonObject().put("verdict", e.verdict()).put("voter", voter(state, e.voterSlug()))
        .put("evaluatedAt", iso(e.evaluatedAt()));
  }

  /** stagedVote: an agent's vote while no human has voted; counts = the agent still holds an active grant. */
  public static JsonObject stagedVote(PublicState state, PersonEvaluation e, boolean counts) {
    return new JsonObject().put("verdict", e.verdict()).put("agent", voter(state, e.voterSlug()))
        .put("reasoning", e.reasoning())
        .put("flags", new JsonArray(e.flags().stream().filter(f -> !"agent".equals(f)).toList()))
        .put("evaluatedAt", iso(e.evaluatedAt())).put("counts", counts);
  }

  // ---- the roster ----

  /**
   * One roster row: the person's public record, the private facts {@code f} (see
   * {@link RosterFacts#ofPage}), the votes and the signals at {@code now}. An agent sees the
   * email's domain, never the email.
   */
  static JsonObject row(PublicState state, Person p, JsonObject f, boolean agent, Set<String> activeAgents,
      Instant now) {
    AccountVotes votes = AccountVotes.of(state, p);
    JsonObject footprint = footprintCounts(state, p);
    String email = f.getString("email");
    JsonObject github = f.getJsonObject("github");
    JsonObject bounce = f.getJsonObject("emailBounce");
    boolean hasFootprint =
        footprint.getInteger("memberships") + footprint.getInteger("updates") + footprint.getInteger("buzz")
            + footprint.getInteger("blogPosts") + footprint.getInteger("helpWantedInterest") > 0;
    Signals.Result signals =
        Signals.of(new Signals.Facts(f.getLong("signInCount", 0L) > 0, p.avatarKey() != null, p.bio(),
            email, p.fullName(), bounce == null ? null : bounce.getString("type"),
            github == null ? null : github.getString("status"),
            github == null ? null : instant(github.getString("accountCreatedAt")),
            github == null ? null : github.getInteger("publicRepos"),
            github == null ? null : github.getInteger("followers"),
            votes.slugPurgedBefore(), f.getString("lastSlackSsoAt") != null, hasFootprint), now);
    Instant purgeAfter = votes.purgeAfter(activeAgents);
    JsonObject githubJson = p.githubUserId() == null ? null : (github == null
        ? new JsonObject().put("login", p.githubLogin()).put("status", "unknown") : github.copy());
    return new JsonObject().put("id", p.id()).put("slug", p.slug()).put("fullName", p.fullName())
        .put("avatarUrl", p.avatarKey() == null ? null : "/media/avatars/" + p.avatarKey())
        .put("createdAt", iso(p.createdAt())).put("deletedAt", iso(p.deletedAt()))
        .put("deactivatedBy", p.deactivatedBy())
        .put("origin", p.legacyId() != null ? "imported" : "signed-up")
        .put("email", agent ? null : email)
        .put("emailDomain", email == null || email.indexOf('@') < 0 ? null : email.substring(email.indexOf('@') + 1))
        .put("hasGitHubLink", p.githubUserId() != null).put("github", githubJson)
        .put("lastLoginAt", f.getString("lastLoginAt")).put("signInCount", f.getLong("signInCount", 0L))
        .put("lastSlackSsoAt", f.getString("lastSlackSsoAt")).put("emailBounce", bounce)
        .put("bioExcerpt", Signals.bioExcerpt(p.bio())).put("footprint", footprint)
        .put("latestVote", votes.latestVote().map(e -> latestVote(state, e)).orElse(null))
        .put("stagedVote", votes.stagedVote().map(e -> stagedVote(state, e, activeAgents.contains(e.voterSlug())))
            .orElse(null))
        .put("purgeAfter", iso(purgeAfter)).put("signals", new JsonArray(signals.signals()))
        .put("attention", signals.attention());
  }

  /** A date or date-time from GitHub's facts; null when absent or unreadable. */
  static Instant instant(String iso) {
    try {
      return iso == null ? null : Instant.parse(iso.length() == 10 ? iso + "T00:00:00Z" : iso);
    } catch (RuntimeException e) {
      return null;
    }
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

  /** The detail of {@code p}: its roster {@code row} plus the person, footprint lists, votes, earlierVotes, earlierPurges. */
  static JsonObject detail(PublicState state, Person p, JsonObject row, boolean agent) {
    AccountVotes votes = AccountVotes.of(state, p);
    JsonObject person = PersonView.staffJson(p, agent ? null : row.getString("email"));
    if (agent) {
      person.remove("email");
    }
    JsonArray counting = new JsonArray();
    votes.counting().forEach(e -> counting.add(vote(state, e)));
    JsonArray earlier = new JsonArray();
    votes.earlier().forEach(e -> earlier.add(vote(state, e)));
    JsonArray purges = new JsonArray();
    votes.purgesOfSlug().forEach(s -> purges.add(new JsonObject().put("id", s.id())
        .put("purgedAt", iso(s.purgedAt())).put("by", s.by()).put("reason", s.reason())));
    return row.put("person", person).put("footprint", footprintLists(state, p)).put("votes", counting)
        .put("earlierVotes", earlier).put("earlierPurges", purges);
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
      buzz.add(
          new JsonObject().put("project", projectRef(project, null)).put("slug", b.slug()).put("title", b.headline())
              .put("postedAt", iso(b.publishedAt())));
    }
    JsonArray posts = new JsonArray();
    for (BlogPost bp : state.find(Sheet.BLOG_POSTS, "authorId", p.id(), BlogPost.class)) {
      posts.add(new JsonObject().put("slug", bp.slug()).put("title", bp.title()).put("postedAt", iso(bp.postedAt())));
    }
    JsonArray interest = new JsonArray();
    for (HelpWantedInterest i : state.find(Sheet.HELP_WANTED_INTEREST, "personId", p.id(), HelpWantedInterest.class)) {
      HelpWantedRole role = state.findOne(Sheet.HELP_WANTED_ROLES, "id", i.roleId(), HelpWantedRole.class).orElse(null);
      Project project =
          role == null ? null : state.findOne(Sheet.PROJECTS, "id", role.projectId(), Project.class).orElse(null);
      interest.add(new JsonObject().put("project", projectRef(project, null))
          .put("role", new JsonObject().put("title", role == null ? null : role.title()))
          .put("createdAt", iso(i.createdAt())));
    }
    JsonArray tags = new JsonArray();
    for (TagAssignment a : state.find(Sheet.TAG_ASSIGNMENTS, "taggable", "person:" + p.id(), TagAssignment.class)) {
      state.findOne(Sheet.TAGS, "id", a.tagId(), Tag.class).ifPresent(
          t -> tags.add(new JsonObject().put("handle", t.namespace() + "." + t.slug()).put("type", t.namespace())));
    }
    return new JsonObject().put("memberships", memberships).put("updates", updates).put("buzz", buzz)
        .put("blogPosts", posts).put("helpWantedInterest", interest).put("tags", tags);
  }

  static JsonObject projectRef(Project p, String slug) {
    return new JsonObject().put("slug", p == null ? slug : p.slug()).put("title", p == null ? null : p.title());
  }

  // ---- the spam-purge log ----

  /**
   * One log item: the record, who purged (byRef), and links into the data repository's web view
   * ({@code webUrl}, none when unset): the record's history on {@code branch}, each evidence item as
   * it was before the purge.
   */
  static JsonObject purgeLogItem(PublicState state, SpamPurge s, String webUrl, String branch) {
    JsonObject item = SpamPurgeView.json(s).put("byRef", byRef(state, s.by()))
        .put("commitUrl", webUrl == null ? null : webUrl + "/commits/" + branch + "/" + Sheet.SPAM_PURGES.path(s.id()));
    JsonArray evidence = item.getJsonArray("evidence");
    for (int i = 0; i < evidence.size(); i++) {
      JsonObject e = evidence.getJsonObject(i);
      e.put("url", webUrl == null || s.beforeCommit() == null ? null
          : webUrl + "/blob/" + s.beforeCommit() + "/" + e.getString("path"));
    }
    return item;
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

  // ---- agents ----

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
