package io.shotstash.community;

import static io.shotstash.bus.Json.iso;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Comparator;
import java.util.List;

/**
 * The JSON the community routes answer. A reference to a person who is deactivated (or gone)
 * renders as a "Deactivated user" placeholder for everyone but staff: the record stays, the person
 * does not show.
 */
public final class CommunityViews {
  public static final String DEACTIVATED = "Deactivated user";

  private CommunityViews() {}

  /** A person reference: {slug, fullName}, or the placeholder. */
  public static JsonObject personRef(PublicState state, String personId, boolean staff) {
    Person p = personId == null ? null : state.personById(personId).orElse(null);
    if (p == null || (p.isDeactivated() && !staff)) {
      return new JsonObject().put("slug", null).put("fullName", DEACTIVATED).put("deactivated", true);
    }
    return new JsonObject().put("slug", p.slug()).put("fullName", p.fullName()).put("deactivated", p.isDeactivated());
  }

  public static JsonObject project(PublicState state, Project p, boolean staff) {
    return new JsonObject().put("id", p.id()).put("slug", p.slug()).put("title", p.title()).put("summary", p.summary())
        .put("overview", p.overview()).put("stage", p.stage())
        .put("createdBy", personRef(state, p.createdById(), staff))
        .put("maintainer", personRef(state, p.maintainerId(), staff))
        .put("createdAt", iso(p.createdAt())).put("updatedAt", iso(p.updatedAt())).put("deletedAt", iso(p.deletedAt()))
        .put("tags", tags(state, "project", p.id()));
  }

  /** The project with its members, updates, buzz and roles. */
  public static JsonObject projectDetail(PublicState state, Project p, boolean staff) {
    JsonArray members = new JsonArray();
    state.find(Sheet.PROJECT_MEMBERSHIPS, "projectId", p.id(), ProjectMembership.class).stream()
        .sorted(Comparator.comparing(ProjectMembership::joinedAt, Comparator.nullsLast(Comparator.naturalOrder())))
        .forEach(m -> members.add(membership(state, m, staff)));
    JsonArray updates = new JsonArray();
    state.find(Sheet.PROJECT_UPDATES, "projectId", p.id(), ProjectUpdate.class).stream()
        .sorted(Comparator.comparingInt(ProjectUpdate::number).reversed())
        .forEach(u -> updates.add(update(state, p, u, staff)));
    JsonArray buzz = new JsonArray();
    state.find(Sheet.PROJECT_BUZZ, "projectId", p.id(), ProjectBuzz.class)
        .forEach(b -> buzz.add(buzz(state, p, b, staff)));
    JsonArray roles = new JsonArray();
    state.find(Sheet.HELP_WANTED_ROLES, "projectId", p.id(), HelpWantedRole.class)
        .forEach(r -> roles.add(role(state, p, r, staff)));
    return project(state, p, staff).put("members", members).put("updates", updates).put("buzz", buzz)
        .put("helpWanted", roles);
  }

  public static JsonObject membership(PublicState state, ProjectMembership m) {
    return membership(state, m, true);
  }

  public static JsonObject membership(PublicState state, ProjectMembership m, boolean staff) {
    return new JsonObject().put("project", new JsonObject().put("slug", m.projectSlug()))
        .put("person", personRef(state, m.personId(), staff)).put("role", m.role())
        .put("isMaintainer", m.isMaintainer())
        .put("joinedAt", iso(m.joinedAt()));
  }

  public static JsonObject update(PublicState state, Project p, ProjectUpdate u) {
    return update(state, p, u, true);
  }

  static JsonObject update(PublicState state, Project p, ProjectUpdate u, boolean staff) {
    return ofProject(u.id(), p)
        .put("number", u.number()).put("body", u.body()).put("author", personRef(state, u.authorId(), staff))
        .put("postedAt", iso(u.createdAt()));
  }

  public static JsonObject buzz(PublicState state, Project p, ProjectBuzz b) {
    return buzz(state, p, b, true);
  }

  static JsonObject buzz(PublicState state, Project p, ProjectBuzz b, boolean staff) {
    return ofProject(b.id(), p)
        .put("slug", b.slug()).put("headline", b.headline()).put("url", b.url()).put("summary", b.summary())
        .put("postedBy", personRef(state, b.postedById(), staff)).put("postedAt", iso(b.publishedAt()));
  }

  public static JsonObject role(PublicState state, Project p, HelpWantedRole r) {
    return role(state, p, r, true);
  }

  public static JsonObject role(PublicState state, Project p, HelpWantedRole r, boolean staff) {
    return ofProject(r.id(), p)
        .put("title", r.title()).put("description", r.description()).put("status", r.status())
        .put("postedBy", personRef(state, r.postedById(), staff)).put("createdAt", iso(r.createdAt()))
        .put("interested", state.findKeys(Sheet.HELP_WANTED_INTEREST, "roleId", r.id()).size());
  }

  /** The start of what belongs to project {@code p}: its {@code id} and the project as {slug, title}. */
  private static JsonObject ofProject(String id, Project p) {
    return new JsonObject().put("id", id).put("project",
        new JsonObject().put("slug", p.slug()).put("title", p.title()));
  }

  public static JsonObject interest(PublicState state, HelpWantedInterest i) {
    return new JsonObject().put("roleId", i.roleId()).put("person", personRef(state, i.personId(), true))
        .put("message", i.message()).put("createdAt", iso(i.createdAt()));
  }

  public static JsonObject tag(Tag t) {
    return new JsonObject().put("id", t.id()).put("namespace", t.namespace()).put("slug", t.slug())
        .put("handle", t.namespace() + "." + t.slug()).put("title", t.title());
  }

  /** The tags on a person or project, as {handle, type, title}. */
  public static JsonArray tags(PublicState state, String type, String id) {
    JsonArray out = new JsonArray();
    List<TagAssignment> assignments =
        state.find(Sheet.TAG_ASSIGNMENTS, "taggable", type + ":" + id, TagAssignment.class);
    for (TagAssignment a : assignments) {
      state.findOne(Sheet.TAGS, "id", a.tagId(), Tag.class).ifPresent(t -> out.add(new JsonObject()
          .put("handle", t.namespace() + "." + t.slug()).put("type", t.namespace()).put("title", t.title())));
    }
    return out;
  }
}
