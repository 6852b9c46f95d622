package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.community.CommunityViews;
import io.shotstash.community.PeopleWrites;
import io.shotstash.community.ProjectRules;
import io.shotstash.community.ProjectWrites;
import io.shotstash.community.TextLength;
import io.shotstash.publicdata.Slugs;
import io.shotstash.people.PersonRules;
import io.shotstash.people.PersonView;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.ratelimit.WriteLimit;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The community over REST (DATA.md → Community routes): people, projects, memberships, updates,
 * buzz, help-wanted roles and interest, tags, blog posts. Reads come from this node's public state;
 * every write is a command to the git writer, where its rule lives ({@link PeopleWrites},
 * {@link ProjectWrites}).
 */
final class CommunityRoutes {
  private final HttpServices services;

  CommunityRoutes(HttpServices services) {
    this.services = services;
  }

  void mount(Router router, BodyHandler json) {
    router.get("/api/people").handler(ctx -> Routes.run(ctx, listPeople(ctx)));
    router.get("/api/people/:slug").handler(ctx -> Routes.run(ctx, person(ctx)));
    router.patch("/api/people/:slug").handler(json).handler(ctx -> Routes.run(ctx, editPerson(ctx)));
    router.post("/api/people/:slug/deactivate").handler(json).handler(ctx -> Routes.run(ctx,
        simple(ctx, PeopleWrites.DEACTIVATE, new JsonObject().put("slug", personSlug(ctx)), "person")));
    router.post("/api/people/:slug/reactivate").handler(json).handler(ctx -> Routes.run(ctx,
        simple(ctx, PeopleWrites.REACTIVATE, new JsonObject().put("slug", personSlug(ctx)), "person")));
    router.post("/api/people/:slug/purge").handler(json).handler(ctx -> Routes.run(ctx, purge(ctx)));
    router.put("/api/people/:slug/avatar").handler(ctx -> Routes.run(ctx, putAvatar(ctx)));
    router.delete("/api/people/:slug/avatar").handler(ctx -> Routes.run(ctx,
        simple(ctx, PeopleWrites.AVATAR, new JsonObject().put("slug", personSlug(ctx)).putNull("avatarKey"), "person")));
    router.post("/api/people/:slug/tags/:namespace/:tag").handler(json).handler(ctx -> Routes.run(ctx, tag(ctx, "person", true)));
    router.delete("/api/people/:slug/tags/:namespace/:tag").handler(ctx -> Routes.run(ctx, tag(ctx, "person", false)));

    router.get("/api/projects").handler(ctx -> Routes.run(ctx, listProjects(ctx)));
    router.post("/api/projects").handler(json).handler(ctx -> Routes.run(ctx, createProject(ctx)));
    router.get("/api/projects/:slug").handler(ctx -> Routes.run(ctx, project(ctx)));
    router.patch("/api/projects/:slug").handler(json).handler(ctx -> Routes.run(ctx, editProject(ctx)));
    router.delete("/api/projects/:slug").handler(ctx -> Routes.run(ctx,
        simple(ctx, ProjectWrites.DELETE, new JsonObject().put("slug", projectSlug(ctx)), null)));
    router.post("/api/projects/:slug/members/join").handler(json).handler(ctx -> Routes.run(ctx,
        simple(ctx, ProjectWrites.JOIN, new JsonObject().put("slug", projectSlug(ctx)), "membership")));
    router.post("/api/projects/:slug/members/leave").handler(json).handler(ctx -> Routes.run(ctx,
        simple(ctx, ProjectWrites.LEAVE, new JsonObject().put("slug", projectSlug(ctx)), null)));
    router.post("/api/projects/:slug/updates").handler(json).handler(ctx -> Routes.run(ctx, postUpdate(ctx)));
    router.post("/api/projects/:slug/buzz").handler(json).handler(ctx -> Routes.run(ctx, postBuzz(ctx)));
    router.post("/api/projects/:slug/help-wanted").handler(json).handler(ctx -> Routes.run(ctx, postRole(ctx)));
    router.post("/api/projects/:slug/tags/:namespace/:tag").handler(json).handler(ctx -> Routes.run(ctx, tag(ctx, "project", true)));
    router.delete("/api/projects/:slug/tags/:namespace/:tag").handler(ctx -> Routes.run(ctx, tag(ctx, "project", false)));
    router.get("/api/help-wanted").handler(ctx -> Routes.run(ctx, listRoles(ctx)));
    router.post("/api/help-wanted/:roleId/interest").handler(json).handler(ctx -> Routes.run(ctx, interest(ctx)));

    router.get("/api/tags").handler(ctx -> Routes.run(ctx, listTags(ctx)));
    router.post("/api/tags").handler(json).handler(ctx -> Routes.run(ctx, createTag(ctx)));
    router.get("/api/blog-posts").handler(ctx -> Routes.run(ctx, listPosts(ctx)));
    router.get("/api/blog-posts/:slug").handler(ctx -> Routes.run(ctx, post(ctx)));
  }

  // ---- shared ----

  private boolean staff(RoutingContext ctx) {
    return Callers.actor(ctx) instanceof Actor.Member m && m.atLeast(AccountLevel.STAFF);
  }

  private static String personSlug(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    if (slug == null || !PersonRules.SLUG.matcher(slug).matches()) {
      throw ApiError.notFound().toException(); // validated before any lookup
    }
    return slug;
  }

  private static String projectSlug(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    if (slug == null || !Slugs.PROJECT.matcher(slug.toLowerCase(Locale.ROOT)).matches()) {
      throw ApiError.notFound().toException();
    }
    return slug.toLowerCase(Locale.ROOT);
  }

  /** The signed-in member (401 otherwise) after the 30-writes-a-minute cap. */
  private Future<Actor.Member> writer(RoutingContext ctx) {
    Actor.Member m = Callers.member(ctx);
    return services.limiter().tryAcquire(WriteLimit.key(m.personId()), WriteLimit.PER_MINUTE, WriteLimit.WINDOW)
        .compose(AuthRoutes::refuseIfLimited).map(m);
  }

  private Future<JsonObject> write(RoutingContext ctx, Actor.Member m, String action, JsonObject params) {
    return services.writes().write(new WriteCommand(action, m, ctx.request().method().name(), ctx.request().path(), params));
  }

  /** A write that takes no body fields, whose reply field {@code key} is the answer (null: the whole reply). */
  private Future<Void> simple(RoutingContext ctx, String action, JsonObject params, String key) {
    return writer(ctx).compose(m -> {
          if (ctx.body() != null && ctx.body().length() > 0) {
            JsonBody.of(ctx, Set.of()).validate();
          }
          return write(ctx, m, action, params);
        })
        .compose(reply -> Envelope.ok(ctx, 200, key == null ? reply : reply.getValue(key)));
  }

  /** A text field, stripped, with its length problem (or "is required") noted in the body. */
  private static String text(JsonBody body, String field, TextLength length, boolean required) {
    String v = body.string(field);
    if (v == null) {
      if (required) {
        body.problem(field, "is required");
      }
      return null;
    }
    String t = v.strip();
    body.problem(field, length.problem(t));
    return t;
  }

  // ---- people ----

  private Future<Void> listPeople(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of("q", "sort"));
    boolean staff = staff(ctx);
    String q = ctx.queryParams().get("q");
    String sort = ctx.queryParams().get("sort") == null ? "-createdAt" : ctx.queryParams().get("sort");
    Comparator<Person> order = switch (sort.replaceFirst("^-", "")) {
      case "createdAt" -> Comparator.comparing(Person::createdAt, Comparator.nullsFirst(Comparator.naturalOrder()));
      case "fullName" -> Comparator.comparing(p -> p.fullName().toLowerCase(Locale.ROOT));
      case "slug" -> Comparator.comparing(Person::slug);
      default -> throw ApiError.validation("sort", "must be createdAt, fullName or slug (with - for descending)").toException();
    };
    if (sort.startsWith("-")) {
      order = order.reversed();
    }
    String needle = q == null ? null : q.toLowerCase(Locale.ROOT);
    List<Person> people = services.publicState().current().all(Sheet.PEOPLE, Person.class).stream()
        .filter(p -> staff || !p.isDeactivated())
        .filter(p -> needle == null || p.slug().contains(needle) || p.fullName().toLowerCase(Locale.ROOT).contains(needle))
        .sorted(order.thenComparing(Person::slug)).toList();
    JsonArray data = new JsonArray();
    paging.slice(people).forEach(p -> data.add(staff ? PersonView.staffJson(p, null) : PersonView.publicJson(p)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), people.size());
  }

  private Future<Void> person(RoutingContext ctx) {
    String slug = personSlug(ctx);
    Routes.noQuery(ctx);
    boolean staff = staff(ctx);
    PublicState state = services.publicState().current();
    Person p = state.personBySlug(slug).filter(x -> staff || !x.isDeactivated()).orElseThrow(() -> ApiError.notFound().toException());
    JsonArray memberships = new JsonArray();
    state.find(Sheet.PROJECT_MEMBERSHIPS, "personId", p.id(), ProjectMembership.class)
        .forEach(m -> memberships.add(CommunityViews.membership(state, m, staff)));
    Future<String> email = staff ? services.sessions().emailOf(p.id()) : Future.succeededFuture(null);
    return email.compose(e -> Envelope.ok(ctx, 200, (staff ? PersonView.staffJson(p, e) : PersonView.publicJson(p))
        .put("memberships", memberships).put("tags", CommunityViews.tags(state, "person", p.id()))));
  }

  private Future<Void> editPerson(RoutingContext ctx) {
    String slug = personSlug(ctx);
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("fullName", "bio", "slug"));
      JsonObject params = new JsonObject().put("slug", slug);
      String fullName = body.string("fullName");
      if (fullName != null) {
        body.problem("fullName", PersonRules.fullNameProblem(fullName));
        params.put("fullName", fullName);
      }
      if (body.has("bio")) {
        String bio = body.string("bio");
        body.problem("bio", PeopleWrites.bioProblem(bio));
        params.put("bio", bio);
      }
      String newSlug = body.string("slug");
      if (newSlug != null) {
        body.problem("slug", PersonRules.slugProblem(newSlug));
        params.put("newSlug", newSlug);
      }
      body.validate();
      return write(ctx, m, PeopleWrites.UPDATE, params);
    }).compose(reply -> Envelope.ok(ctx, 200, reply.getValue("person")));
  }

  /** Avatars: PNG, JPEG, WebP or GIF, at most 2 MiB, streamed to storage, then set through the writer. */
  static final long AVATAR_LIMIT = 2L * 1024 * 1024;
  static final java.util.Map<String, String> AVATAR_TYPES =
      java.util.Map.of("image/png", "png", "image/jpeg", "jpg", "image/webp", "webp", "image/gif", "gif");

  private Future<Void> putAvatar(RoutingContext ctx) {
    String slug = personSlug(ctx);
    String type = ctx.request().getHeader("Content-Type");
    String ext = type == null ? null : AVATAR_TYPES.get(type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT));
    var body = Uploads.body(ctx.request());
    return writer(ctx).compose(m -> {
      if (ext == null) {
        throw ApiError.validation("Content-Type", "must be image/png, image/jpeg, image/webp or image/gif").toException();
      }
      String file = io.shotstash.auth.Ids.uuid7() + "." + ext;
      String key = io.shotstash.media.Storage.avatarKey(file);
      ApiError tooLarge = ApiError.of(413, "body_too_large", "An avatar is at most 2 MiB");
      Uploads.continueIfExpected(ctx.request());
      return services.storage().write(key, body, AVATAR_LIMIT)
          .recover(err -> Future.failedFuture(Uploads.refusalFor(err, tooLarge)))
          .compose(written -> written.size() == 0
              ? services.storage().delete(key).compose(v -> Future.failedFuture(
                  ApiError.validation("body", "the image is empty").toException()))
              : write(ctx, m, PeopleWrites.AVATAR, new JsonObject().put("slug", slug).put("avatarKey", file))
                  .recover(err -> services.storage().delete(key).transform(v -> Future.failedFuture(err))));
    }).compose(reply -> Envelope.ok(ctx, 200, reply.getValue("person")));
  }

  private Future<Void> purge(RoutingContext ctx) {
    Actor actor = Callers.actor(ctx);
    if (!(actor instanceof Actor.Member m) || !m.atLeast(AccountLevel.ADMINISTRATOR)) {
      throw ApiError.notFound().toException(); // a staff-only surface: nobody else learns it exists
    }
    String slug = personSlug(ctx);
    return writer(ctx).compose(w -> {
      JsonBody body = JsonBody.of(ctx, Set.of("reason", "spam"));
      String reason = text(body, "reason", PeopleWrites.PURGE_REASON, true);
      Boolean spam = body.bool("spam");
      body.validate();
      return write(ctx, w, PeopleWrites.PURGE, new JsonObject().put("slug", slug).put("reason", reason)
          .put("spam", spam == null || spam));
    }).compose(reply -> Envelope.ok(ctx, 200, reply));
  }

  private Future<Void> tag(RoutingContext ctx, String type, boolean assign) {
    String slug = "person".equals(type) ? personSlug(ctx) : projectSlug(ctx);
    String namespace = ctx.pathParam("namespace");
    String tag = ctx.pathParam("tag");
    if (!ProjectRules.TAG_NAMESPACES.contains(namespace) || !Slugs.TAG.matcher(tag).matches()) {
      throw ApiError.notFound().toException();
    }
    return simple(ctx, assign ? ProjectWrites.ASSIGN_TAG : ProjectWrites.UNASSIGN_TAG, new JsonObject().put("type", type)
        .put("slug", slug).put("namespace", namespace).put("tagSlug", tag), null);
  }

  // ---- projects ----

  private Future<Void> listProjects(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of("q"));
    String q = ctx.queryParams().get("q");
    String needle = q == null ? null : q.toLowerCase(Locale.ROOT);
    PublicState state = services.publicState().current();
    boolean staff = staff(ctx);
    List<Project> projects = state.all(Sheet.PROJECTS, Project.class).stream()
        .filter(p -> p.deletedAt() == null)
        .filter(p -> needle == null || p.slug().contains(needle) || p.title().toLowerCase(Locale.ROOT).contains(needle))
        .sorted(Comparator.comparing(Project::createdAt, Comparator.nullsFirst(Comparator.naturalOrder())).reversed())
        .toList();
    JsonArray data = new JsonArray();
    paging.slice(projects).forEach(p -> data.add(CommunityViews.project(state, p, staff)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), projects.size());
  }

  private Future<Void> project(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    Routes.noQuery(ctx);
    PublicState state = services.publicState().current();
    Project p = state.get(Sheet.PROJECTS, slug, Project.class);
    if (p == null || p.deletedAt() != null) {
      throw ApiError.notFound().toException();
    }
    return Envelope.ok(ctx, 200, CommunityViews.projectDetail(state, p, staff(ctx)));
  }

  private JsonObject projectFields(JsonBody body, boolean creating) {
    JsonObject params = new JsonObject();
    String title = text(body, "title", ProjectRules.TITLE, creating);
    if (title != null) {
      params.put("title", title);
    }
    for (String f : List.of("summary", "overview")) {
      String v = text(body, f, "summary".equals(f) ? ProjectRules.SUMMARY : ProjectRules.OVERVIEW, false);
      if (v != null) {
        params.put(f, v.isEmpty() ? null : v);
      }
    }
    String stage = body.string("stage");
    if (stage != null) {
      body.problem("stage", ProjectRules.stageProblem(stage));
      params.put("stage", stage);
    }
    return params;
  }

  private Future<Void> createProject(RoutingContext ctx) {
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("title", "slug", "summary", "overview", "stage"));
      JsonObject params = projectFields(body, true);
      String slug = body.string("slug");
      if (slug != null) {
        body.problem("slug", ProjectRules.projectSlugProblem(slug));
        params.put("slug", slug);
      }
      body.validate();
      return write(ctx, m, ProjectWrites.CREATE, params);
    }).compose(reply -> Envelope.ok(ctx, 201, reply.getValue("project")));
  }

  private Future<Void> editProject(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("title", "summary", "overview", "stage"));
      JsonObject params = projectFields(body, false).put("slug", slug);
      body.validate();
      return write(ctx, m, ProjectWrites.UPDATE, params);
    }).compose(reply -> Envelope.ok(ctx, 200, reply.getValue("project")));
  }

  private Future<Void> postUpdate(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("body"));
      String text = text(body, "body", ProjectRules.UPDATE_BODY, true);
      body.validate();
      return write(ctx, m, ProjectWrites.POST_UPDATE, new JsonObject().put("slug", slug).put("body", text));
    }).compose(reply -> Envelope.ok(ctx, 201, reply.getValue("update")));
  }

  private Future<Void> postBuzz(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("headline", "url", "summary", "slug"));
      String headline = text(body, "headline", ProjectRules.BUZZ_HEADLINE, true);
      String url = text(body, "url", ProjectRules.BUZZ_URL, true);
      if (url != null) {
        body.problem("url", ProjectRules.buzzUrlProblem(url));
      }
      String summary = text(body, "summary", ProjectRules.BUZZ_SUMMARY, false);
      String buzzSlug = body.string("slug");
      if (buzzSlug != null) {
        body.problem("slug", ProjectRules.buzzSlugProblem(buzzSlug));
      }
      body.validate();
      return write(ctx, m, ProjectWrites.POST_BUZZ, new JsonObject().put("slug", slug).put("headline", headline)
          .put("url", url).put("summary", summary).put("buzzSlug", buzzSlug));
    }).compose(reply -> Envelope.ok(ctx, 201, reply.getValue("buzz")));
  }

  private Future<Void> postRole(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("title", "description"));
      String title = text(body, "title", ProjectRules.ROLE_TITLE, true);
      String description = text(body, "description", ProjectRules.ROLE_DESCRIPTION, true);
      body.validate();
      return write(ctx, m, ProjectWrites.POST_ROLE, new JsonObject().put("slug", slug).put("title", title)
          .put("description", description));
    }).compose(reply -> Envelope.ok(ctx, 201, reply.getValue("role")));
  }

  private Future<Void> listRoles(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of());
    PublicState state = services.publicState().current();
    boolean staff = staff(ctx);
    JsonArray data = new JsonArray();
    List<HelpWantedRole> roles = state.all(Sheet.HELP_WANTED_ROLES, HelpWantedRole.class).stream()
        .filter(r -> "open".equals(r.status()))
        .filter(r -> state.findOne(Sheet.PROJECTS, "id", r.projectId(), Project.class).filter(p -> p.deletedAt() == null).isPresent())
        .sorted(Comparator.comparing(HelpWantedRole::createdAt, Comparator.nullsFirst(Comparator.naturalOrder())).reversed())
        .toList();
    paging.slice(roles).forEach(r -> data.add(CommunityViews.role(state,
        state.findOne(Sheet.PROJECTS, "id", r.projectId(), Project.class).orElseThrow(), r, staff)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), roles.size());
  }

  private Future<Void> interest(RoutingContext ctx) {
    String roleId = ctx.pathParam("roleId");
    if (!io.shotstash.auth.Ids.isUuid(roleId)) {
      throw ApiError.notFound().toException();
    }
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("message"));
      String message = text(body, "message", ProjectRules.INTEREST_MESSAGE, false);
      body.validate();
      return write(ctx, m, ProjectWrites.INTEREST, new JsonObject().put("roleId", roleId).put("message", message));
    }).compose(reply -> Envelope.ok(ctx, 201, reply.getValue("interest")));
  }

  // ---- tags and blog posts ----

  private Future<Void> listTags(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of("namespace"));
    String ns = ctx.queryParams().get("namespace");
    List<Tag> tags = services.publicState().current().all(Sheet.TAGS, Tag.class).stream()
        .filter(t -> ns == null || ns.equals(t.namespace()))
        .sorted(Comparator.comparing(Tag::namespace).thenComparing(Tag::slug)).toList();
    JsonArray data = new JsonArray();
    paging.slice(tags).forEach(t -> data.add(CommunityViews.tag(t)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), tags.size());
  }

  private Future<Void> createTag(RoutingContext ctx) {
    // tags are public and so is this route, like the rest of the community API: anonymous callers
    // are told to sign in and members that they need staff, before the body is read or counted
    Callers.atLeast(ctx, AccountLevel.STAFF);
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, Set.of("namespace", "slug", "title"));
      String namespace = body.string("namespace");
      body.problem("namespace", ProjectRules.namespaceProblem(namespace));
      String title = text(body, "title", ProjectRules.TAG_TITLE, true);
      String slug = body.string("slug");
      if (slug != null) {
        body.problem("slug", ProjectRules.tagSlugProblem(slug));
      }
      body.validate();
      return write(ctx, m, ProjectWrites.CREATE_TAG, new JsonObject().put("namespace", namespace).put("title", title)
          .put("tagSlug", slug));
    }).compose(reply -> Envelope.ok(ctx, 201, reply.getValue("tag")));
  }

  private Future<Void> listPosts(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of());
    PublicState state = services.publicState().current();
    boolean staff = staff(ctx);
    List<BlogPost> posts = state.all(Sheet.BLOG_POSTS, BlogPost.class).stream()
        .sorted(Comparator.comparing(BlogPost::postedAt, Comparator.nullsFirst(Comparator.naturalOrder())).reversed()).toList();
    JsonArray data = new JsonArray();
    paging.slice(posts).forEach(p -> data.add(postJson(state, p, staff, false)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), posts.size());
  }

  private Future<Void> post(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    PublicState state = services.publicState().current();
    BlogPost p = slug == null ? null : state.get(Sheet.BLOG_POSTS, slug, BlogPost.class);
    if (p == null) {
      throw ApiError.notFound().toException();
    }
    return Envelope.ok(ctx, 200, postJson(state, p, staff(ctx), true));
  }

  private static JsonObject postJson(PublicState state, BlogPost p, boolean staff, boolean withBody) {
    JsonObject json = new JsonObject().put("id", p.id()).put("slug", p.slug()).put("title", p.title())
        .put("author", CommunityViews.personRef(state, p.authorId(), staff))
        .put("postedAt", p.postedAt() == null ? null : p.postedAt().toString());
    return withBody ? json.put("body", p.body()) : json;
  }
}
