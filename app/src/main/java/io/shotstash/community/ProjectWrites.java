package io.shotstash.community;

import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.Slugs;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The write rules of projects and what members post in them: create, edit, soft delete, join,
 * leave, updates, buzz, help-wanted roles and interest, tags. One commit per request.
 */
public final class ProjectWrites {
  public static final String CREATE = "project.create";
  public static final String UPDATE = "project.update";
  public static final String DELETE = "project.delete";
  public static final String JOIN = "project.join";
  public static final String LEAVE = "project.leave";
  public static final String POST_UPDATE = "project-update.create";
  public static final String POST_BUZZ = "project-buzz.create";
  public static final String POST_ROLE = "help-wanted-role.create";
  public static final String INTEREST = "help-wanted-interest.create";
  public static final String CREATE_TAG = "tag.create";
  public static final String ASSIGN_TAG = "tag.assign";
  public static final String UNASSIGN_TAG = "tag.unassign";
  /** One expression of interest per role per person per 30 days. */
  public static final Duration INTEREST_EVERY = Duration.ofDays(30);

  private ProjectWrites() {}

  public static List<WriteHandler> handlers() {
    return List.of(WriteHandler.of(CREATE, ProjectWrites::create), WriteHandler.of(UPDATE, ProjectWrites::update),
        WriteHandler.of(DELETE, ProjectWrites::delete), WriteHandler.of(JOIN, ProjectWrites::join),
        WriteHandler.of(LEAVE, ProjectWrites::leave), WriteHandler.of(POST_UPDATE, ProjectWrites::postUpdate),
        WriteHandler.of(POST_BUZZ, ProjectWrites::postBuzz), WriteHandler.of(POST_ROLE, ProjectWrites::postRole),
        WriteHandler.of(INTEREST, ProjectWrites::interest), WriteHandler.of(CREATE_TAG, ProjectWrites::createTag),
        WriteHandler.of(ASSIGN_TAG, ProjectWrites::assignTag),
        WriteHandler.of(UNASSIGN_TAG, ProjectWrites::unassignTag));
  }

  // ---- helpers ----

  private static CommitMessage message(WriteCommand cmd, String action, String type, String id, String slug,
      String body) {
    return Attribution.actorTrailers(Attribution.message(cmd, action, type, id, slug).body(body), cmd.actor()).build();
  }

  private static Optional<Project> project(PublicState state, String slug) {
    return Optional
        .ofNullable(slug == null ? null : state.get(Sheet.PROJECTS, slug.toLowerCase(Locale.ROOT), Project.class))
        .filter(p -> p.deletedAt() == null);
  }

  private static Optional<ProjectMembership> membership(PublicState state, Project project, Person person) {
    return Optional.ofNullable(state.get(Sheet.PROJECT_MEMBERSHIPS, project.slug() + "/" + person.slug(),
        ProjectMembership.class));
  }

  private static boolean isMaintainer(PublicState state, Project project, Person person) {
    return person.id().equals(project.maintainerId())
        || membership(state, project, person).map(ProjectMembership::isMaintainer).orElse(false);
  }

  /** The signed-in, active, non-agent person making the request, or a refusal. */
  private static Future<Person> member(WriteContext ctx, WriteCommand cmd) {
    Optional<Person> me = Rules.live(ctx.state(), cmd.actor()).filter(p -> !p.isDeactivated());
    return me.map(Future::succeededFuture)
        .orElseGet(() -> Rules.refuse(ApiError.forbidden("Sign in with an active account")));
  }

  /** A rule about one live project, run for an active member; a missing project is 404. */
  private interface ProjectRule {
    Future<WritePlan> plan(Person me, Project project);
  }

  private static Future<WritePlan> inProject(WriteContext ctx, WriteCommand cmd, ProjectRule rule) {
    return member(ctx, cmd).compose(me -> project(ctx.state(), cmd.params().getString("slug"))
        .map(project -> rule.plan(me, project))
        .orElseGet(() -> Rules.refusePlan(ApiError.notFound())));
  }

  /** {@link #inProject} for the project's maintainers and staff; anyone else is refused 403 {@code refusal}. */
  private static Future<WritePlan> asMaintainerOrStaff(WriteContext ctx, WriteCommand cmd, String refusal,
      ProjectRule rule) {
    return inProject(ctx, cmd, (me, project) -> {
      PublicState state = ctx.state();
      if (!isMaintainer(state, project, me) && !Rules.isStaff(state, cmd.actor())) {
        return Rules.refusePlan(ApiError.forbidden(refusal));
      }
      return rule.plan(me, project);
    });
  }

  private static JsonObject reply(String key, Object json) {
    return new JsonObject().put(key, json);
  }

  /** The reply to a project's create or edit: the project as it is after the write, as staff see it. */
  private static Function<PublicState, JsonObject> projectReply(String slug) {
    return s -> reply("project", CommunityViews.project(s, s.get(Sheet.PROJECTS, slug, Project.class), true));
  }

  // ---- projects ----

  static Future<WritePlan> create(WriteContext ctx, WriteCommand cmd) {
    return member(ctx, cmd).compose(me -> {
      PublicState state = ctx.state();
      JsonObject p = cmd.params();
      String slug = p.getString("slug");
      if (slug == null) {
        slug = Slugs.fromTitle(p.getString("title"), 80, s -> state.get(Sheet.PROJECTS, s, Project.class) != null);
      } else if (state.get(Sheet.PROJECTS, slug.toLowerCase(Locale.ROOT), Project.class) != null) {
        return Rules.refusePlan(ApiError.validation("slug", "is taken"));
      }
      Instant now = ctx.now();
      Project project =
          new Project(Ids.uuid7(), slug, p.getString("title"), p.getString("summary"), p.getString("overview"),
              p.getString("stage", "commenting"), me.id(), me.id(), null, now, now);
      ProjectMembership m =
          new ProjectMembership(project.id(), me.id(), project.slug(), me.slug(), "Maintainer", true, now);
      return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PROJECTS, project.slug(), project),
          RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(m), m)), null,
          message(cmd, CREATE, "project", project.id(), project.slug(), null), projectReply(project.slug())));
    });
  }

  static Future<WritePlan> update(WriteContext ctx, WriteCommand cmd) {
    return asMaintainerOrStaff(ctx, cmd, "Only the project's maintainers and staff edit it", (me, project) -> {
      JsonObject p = cmd.params();
      Project updated = new Project(project.id(), project.slug(), p.getString("title", project.title()),
          p.containsKey("summary") ? p.getString("summary") : project.summary(),
          p.containsKey("overview") ? p.getString("overview") : project.overview(),
          p.getString("stage", project.stage()),
          project.createdById(), project.maintainerId(), null, project.createdAt(), ctx.now());
      return Future
          .succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PROJECTS, project.slug(), updated)), null,
              message(cmd, UPDATE, "project", project.id(), project.slug(), null), projectReply(project.slug())));
    });
  }

  static Future<WritePlan> delete(WriteContext ctx, WriteCommand cmd) {
    return asMaintainerOrStaff(ctx, cmd, "Only the project's maintainers and staff delete it", (me, project) -> {
      Project deleted = new Project(project.id(), project.slug(), project.title(), project.summary(),
          project.overview(),
          project.stage(), project.createdById(), project.maintainerId(), ctx.now(), project.createdAt(), ctx.now());
      return Future
          .succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PROJECTS, project.slug(), deleted)), null,
              message(cmd, DELETE, "project", project.id(), project.slug(), null), s -> reply("deleted", true)));
    });
  }

  // ---- membership ----

  static Future<WritePlan> join(WriteContext ctx, WriteCommand cmd) {
    return inProject(ctx, cmd, (me, project) -> {
      PublicState state = ctx.state();
      if (membership(state, project, me).isPresent()) {
        return Future.succeededFuture(WritePlan.noChange(
            s -> reply("membership", CommunityViews.membership(s, membership(s, project, me).orElseThrow()))));
      }
      ProjectMembership m =
          new ProjectMembership(project.id(), me.id(), project.slug(), me.slug(), null, false, ctx.now());
      return Future.succeededFuture(
          new WritePlan(List.of(RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(m), m)),
              null, message(cmd, JOIN, "project", project.id(), project.slug(), null),
              s -> reply("membership", CommunityViews.membership(s, m))));
    });
  }

  static Future<WritePlan> leave(WriteContext ctx, WriteCommand cmd) {
    return inProject(ctx, cmd, (me, project) -> {
      PublicState state = ctx.state();
      Optional<ProjectMembership> mine = membership(state, project, me);
      if (mine.isEmpty()) {
        return Future.succeededFuture(WritePlan.noChange(s -> reply("left", false)));
      }
      if (mine.get().isMaintainer()) {
        long maintainers = state.find(Sheet.PROJECT_MEMBERSHIPS, "projectId", project.id(), ProjectMembership.class)
            .stream().filter(ProjectMembership::isMaintainer).count();
        long members = state.findKeys(Sheet.PROJECT_MEMBERSHIPS, "projectId", project.id()).size();
        if (maintainers == 1 && members > 1) {
          return Rules.refusePlan(ApiError.conflict("last_maintainer",
              "The project's last maintainer cannot leave while others are members"));
        }
      }
      return Future.succeededFuture(new WritePlan(
          List.of(RecordChange.delete(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(mine.get()))), null,
          message(cmd, LEAVE, "project", project.id(), project.slug(), null), s -> reply("left", true)));
    });
  }

  // ---- what members post ----

  static Future<WritePlan> postUpdate(WriteContext ctx, WriteCommand cmd) {
    return inProject(ctx, cmd, (me, project) -> {
      PublicState state = ctx.state();
      if (membership(state, project, me).isEmpty()) {
        return Rules.refusePlan(ApiError.forbidden("Only the project's members post updates"));
      }
      int number = 1 + state.find(Sheet.PROJECT_UPDATES, "projectId", project.id(), ProjectUpdate.class).stream()
          .mapToInt(ProjectUpdate::number).max().orElse(0);
      ProjectUpdate update =
          new ProjectUpdate(Ids.uuid7(), project.id(), me.id(), number, cmd.params().getString("body"), ctx.now());
      String key = RecordKeys.projectUpdate(project.slug(), number);
      return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PROJECT_UPDATES, key, update)), null,
          message(cmd, POST_UPDATE, "project", project.id(), project.slug(), null),
          s -> reply("update", CommunityViews.update(s, project, update))));
    });
  }

  static Future<WritePlan> postBuzz(WriteContext ctx, WriteCommand cmd) {
    return inProject(ctx, cmd, (me, project) -> {
      PublicState state = ctx.state();
      if (membership(state, project, me).isEmpty()) {
        return Rules.refusePlan(ApiError.forbidden("Only the project's members post buzz"));
      }
      JsonObject p = cmd.params();
      String buzzSlug = p.getString("buzzSlug");
      if (buzzSlug == null) {
        buzzSlug = Slugs.fromTitle(p.getString("headline"), 100,
            s -> state.get(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(project.slug(), s), ProjectBuzz.class) != null);
      } else if (state.get(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(project.slug(), buzzSlug),
          ProjectBuzz.class) != null) {
        return Rules.refusePlan(ApiError.validation("slug", "is taken"));
      }
      ProjectBuzz buzz = new ProjectBuzz(Ids.uuid7(), project.id(), me.id(), buzzSlug, p.getString("headline"),
          p.getString("url"), p.getString("summary"), ctx.now());
      return Future.succeededFuture(new WritePlan(
          List.of(RecordChange.put(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(project.slug(), buzzSlug), buzz)), null,
          message(cmd, POST_BUZZ, "project", project.id(), project.slug(), null),
          s -> reply("buzz", CommunityViews.buzz(s, project, buzz))));
    });
  }

  static Future<WritePlan> postRole(WriteContext ctx, WriteCommand cmd) {
    return inProject(ctx, cmd, (me, project) -> {
      PublicState state = ctx.state();
      if (!isMaintainer(state, project, me)) {
        return Rules.refusePlan(ApiError.forbidden("Only the project's maintainers post help-wanted roles"));
      }
      HelpWantedRole role = new HelpWantedRole(Ids.uuid7(), project.id(), me.id(), cmd.params().getString("title"),
          cmd.params().getString("description"), "open", ctx.now());
      return Future.succeededFuture(new WritePlan(
          List.of(
              RecordChange.put(Sheet.HELP_WANTED_ROLES, RecordKeys.helpWantedRole(project.slug(), role.id()), role)),
          null,
          message(cmd, POST_ROLE, "project", project.id(), project.slug(), null),
          s -> reply("role", CommunityViews.role(s, project, role))));
    });
  }

  static Future<WritePlan> interest(WriteContext ctx, WriteCommand cmd) {
    return member(ctx, cmd).compose(me -> {
      PublicState state = ctx.state();
      HelpWantedRole role =
          state.findOne(Sheet.HELP_WANTED_ROLES, "id", cmd.params().getString("roleId"), HelpWantedRole.class)
              .orElse(null);
      Project project = role == null ? null : state.findOne(Sheet.PROJECTS, "id", role.projectId(), Project.class)
          .filter(p -> p.deletedAt() == null).orElse(null);
      if (project == null) {
        return Rules.refusePlan(ApiError.notFound());
      }
      HelpWantedInterest previous =
          state.get(Sheet.HELP_WANTED_INTEREST, role.id() + "/" + me.slug(), HelpWantedInterest.class);
      if (previous != null && previous.createdAt() != null
          && previous.createdAt().plus(INTEREST_EVERY).isAfter(ctx.now())) {
        long wait = Duration.between(ctx.now(), previous.createdAt().plus(INTEREST_EVERY)).toSeconds();
        return Rules.refusePlan(new ApiError(429, "rate_limited",
            "You expressed interest in this role less than 30 days ago", null,
            (int) Math.min(Integer.MAX_VALUE, Math.max(1, wait))));
      }
      HelpWantedInterest interest =
          new HelpWantedInterest(role.id(), me.id(), cmd.params().getString("message"), ctx.now());
      return Future.succeededFuture(new WritePlan(
          List.of(RecordChange.put(Sheet.HELP_WANTED_INTEREST, RecordKeys.helpWantedInterest(interest, me.slug()),
              interest)),
          null, message(cmd, INTEREST, "help-wanted-role", role.id(), project.slug(), null),
          s -> reply("interest", CommunityViews.interest(s, interest))));
    });
  }

  // ---- tags ----

  static Future<WritePlan> createTag(WriteContext ctx, WriteCommand cmd) {
    if (!Rules.isStaff(ctx.state(), cmd.actor())) {
      return Rules.refusePlan(ApiError.forbidden("Only staff create tags"));
    }
    JsonObject p = cmd.params();
    String namespace = p.getString("namespace");
    String slug = p.getString("tagSlug");
    PublicState state = ctx.state();
    if (slug == null) {
      slug =
          Slugs.fromTitle(p.getString("title"), 50, s -> state.get(Sheet.TAGS, namespace + "/" + s, Tag.class) != null);
    } else if (state.get(Sheet.TAGS, namespace + "/" + slug, Tag.class) != null) {
      return Rules.refusePlan(ApiError.validation("slug", "is taken"));
    }
    Tag tag = new Tag(Ids.uuid7(), namespace, slug, p.getString("title"));
    return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.TAGS, RecordKeys.tag(tag), tag)), null,
        message(cmd, CREATE_TAG, "tag", tag.id(), namespace + "/" + tag.slug(), null),
        s -> reply("tag", CommunityViews.tag(tag))));
  }

  /** {type: person|project, slug, namespace, tagSlug}: the person themselves or staff; a project's members or staff. */
  static Future<WritePlan> assignTag(WriteContext ctx, WriteCommand cmd) {
    return tagTarget(ctx, cmd).compose(t -> {
      TagAssignment a = new TagAssignment(t.tag.id(), t.type, t.id);
      String key = RecordKeys.tagAssignment(a);
      if (ctx.state().get(Sheet.TAG_ASSIGNMENTS, key, TagAssignment.class) != null) {
        return Future.succeededFuture(WritePlan.noChange(s -> reply("assigned", true)));
      }
      return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.TAG_ASSIGNMENTS, key, a)), null,
          message(cmd, ASSIGN_TAG, t.type, t.id, t.slug, t.tag.namespace() + "/" + t.tag.slug()),
          s -> reply("assigned", true)));
    });
  }

  static Future<WritePlan> unassignTag(WriteContext ctx, WriteCommand cmd) {
    return tagTarget(ctx, cmd).compose(t -> {
      String key = RecordKeys.tagAssignment(new TagAssignment(t.tag.id(), t.type, t.id));
      if (ctx.state().get(Sheet.TAG_ASSIGNMENTS, key, TagAssignment.class) == null) {
        return Future.succeededFuture(WritePlan.noChange(s -> reply("assigned", false)));
      }
      return Future.succeededFuture(new WritePlan(List.of(RecordChange.delete(Sheet.TAG_ASSIGNMENTS, key)), null,
          message(cmd, UNASSIGN_TAG, t.type, t.id, t.slug, t.tag.namespace() + "/" + t.tag.slug()),
          s -> reply("assigned", false)));
    });
  }

  private record TagTarget(Tag tag, String type, String id, String slug) {}

  private static Future<TagTarget> tagTarget(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    JsonObject p = cmd.params();
    Tag tag = state.get(Sheet.TAGS, p.getString("namespace") + "/" + p.getString("tagSlug"), Tag.class);
    if (tag == null) {
      return Rules.refuse(ApiError.validation("tag", "no such tag"));
    }
    boolean staff = Rules.isStaff(state, cmd.actor());
    if ("person".equals(p.getString("type"))) {
      Person person = state.personBySlug(p.getString("slug")).orElse(null);
      if (person == null || !(staff || Rules.isSelf(cmd.actor(), person))) {
        return Rules.refuse(ApiError.notFound());
      }
      return Future.succeededFuture(new TagTarget(tag, "person", person.id(), person.slug()));
    }
    Project project = project(state, p.getString("slug")).orElse(null);
    if (project == null) {
      return Rules.refuse(ApiError.notFound());
    }
    boolean member = Rules.live(state, cmd.actor()).flatMap(me -> membership(state, project, me)).isPresent();
    if (!staff && !member) {
      return Rules.refuse(ApiError.forbidden("Only the project's members and staff tag it"));
    }
    return Future.succeededFuture(new TagTarget(tag, "project", project.id(), project.slug()));
  }
}
