package io.shotstash.http;

import static io.shotstash.http.CommunityRequests.projectSlug;
import static io.shotstash.http.CommunityRequests.text;

import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.community.CommunityViews;
import io.shotstash.community.ProjectRules;
import io.shotstash.community.ProjectWrites;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Project;
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
 * Projects on the community API (docs/community-api.md → Projects, Memberships, Updates, Buzz, Help
 * wanted): reads from this node's public state; each body checked against {@link ProjectRules};
 * every write a command to the git writer, whose rule is in {@link ProjectWrites}.
 */
record ProjectRoutes(CommunityRequests req) {
  void mount(Router router, BodyHandler json) {
    router.get("/api/projects").handler(ctx -> Routes.run(ctx, listProjects(ctx)));
    router.post("/api/projects").handler(json).handler(ctx -> Routes.run(ctx, createProject(ctx)));
    router.get("/api/projects/:slug").handler(ctx -> Routes.run(ctx, project(ctx)));
    router.patch("/api/projects/:slug").handler(json).handler(ctx -> Routes.run(ctx, editProject(ctx)));
    router.delete("/api/projects/:slug").handler(ctx -> Routes.run(ctx,
        req.simple(ctx, ProjectWrites.DELETE, new JsonObject().put("slug", projectSlug(ctx)), null)));
    router.post("/api/projects/:slug/members/join").handler(json).handler(ctx -> Routes.run(ctx,
        req.simple(ctx, ProjectWrites.JOIN, new JsonObject().put("slug", projectSlug(ctx)), "membership")));
    router.post("/api/projects/:slug/members/leave").handler(json).handler(ctx -> Routes.run(ctx,
        req.simple(ctx, ProjectWrites.LEAVE, new JsonObject().put("slug", projectSlug(ctx)), null)));
    router.post("/api/projects/:slug/updates").handler(json).handler(ctx -> Routes.run(ctx, postUpdate(ctx)));
    router.post("/api/projects/:slug/buzz").handler(json).handler(ctx -> Routes.run(ctx, postBuzz(ctx)));
    router.post("/api/projects/:slug/help-wanted").handler(json).handler(ctx -> Routes.run(ctx, postRole(ctx)));
    router.post("/api/projects/:slug/tags/:namespace/:tag").handler(json)
        .handler(ctx -> Routes.run(ctx, req.tag(ctx, "project", true)));
    router.delete("/api/projects/:slug/tags/:namespace/:tag")
        .handler(ctx -> Routes.run(ctx, req.tag(ctx, "project", false)));
    router.get("/api/help-wanted").handler(ctx -> Routes.run(ctx, listRoles(ctx)));
    router.post("/api/help-wanted/:roleId/interest").handler(json).handler(ctx -> Routes.run(ctx, interest(ctx)));
  }

  private Future<Void> listProjects(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of("q"));
    String q = ctx.queryParams().get("q");
    String needle = q == null ? null : q.toLowerCase(Locale.ROOT);
    PublicState state = req.services().publicState().current();
    boolean staff = req.staff(ctx);
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
    PublicState state = req.services().publicState().current();
    Project p = state.get(Sheet.PROJECTS, slug, Project.class);
    if (p == null || p.deletedAt() != null) {
      throw ApiError.notFound().toException();
    }
    return Envelope.ok(ctx, 200, CommunityViews.projectDetail(state, p, req.staff(ctx)));
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
    body.putChecked(params, "stage", "stage", ProjectRules::stageProblem);
    return params;
  }

  private Future<Void> createProject(RoutingContext ctx) {
    return req.fromBody(ctx, Set.of("title", "slug", "summary", "overview", "stage"), ProjectWrites.CREATE, body -> {
      JsonObject params = projectFields(body, true);
      body.putChecked(params, "slug", "slug", ProjectRules::projectSlugProblem);
      return params;
    }, 201, "project");
  }

  private Future<Void> editProject(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return req.fromBody(ctx, Set.of("title", "summary", "overview", "stage"), ProjectWrites.UPDATE,
        body -> projectFields(body, false).put("slug", slug), 200, "project");
  }

  private Future<Void> postUpdate(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return req.fromBody(ctx, Set.of("body"), ProjectWrites.POST_UPDATE,
        body -> new JsonObject().put("slug", slug).put("body", text(body, "body", ProjectRules.UPDATE_BODY, true)),
        201, "update");
  }

  private Future<Void> postBuzz(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return req.fromBody(ctx, Set.of("headline", "url", "summary", "slug"), ProjectWrites.POST_BUZZ, body -> {
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
      return new JsonObject().put("slug", slug).put("headline", headline).put("url", url).put("summary", summary)
          .put("buzzSlug", buzzSlug);
    }, 201, "buzz");
  }

  private Future<Void> postRole(RoutingContext ctx) {
    String slug = projectSlug(ctx);
    return req.fromBody(ctx, Set.of("title", "description"), ProjectWrites.POST_ROLE,
        body -> new JsonObject().put("slug", slug).put("title", text(body, "title", ProjectRules.ROLE_TITLE, true))
            .put("description", text(body, "description", ProjectRules.ROLE_DESCRIPTION, true)),
        201, "role");
  }

  private Future<Void> listRoles(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of());
    PublicState state = req.services().publicState().current();
    boolean staff = req.staff(ctx);
    JsonArray data = new JsonArray();
    List<HelpWantedRole> roles = state.all(Sheet.HELP_WANTED_ROLES, HelpWantedRole.class).stream()
        .filter(r -> "open".equals(r.status()))
        .filter(r -> state.findOne(Sheet.PROJECTS, "id", r.projectId(), Project.class)
            .filter(p -> p.deletedAt() == null).isPresent())
        .sorted(Comparator.comparing(HelpWantedRole::createdAt, Comparator.nullsFirst(Comparator.naturalOrder()))
            .reversed())
        .toList();
    paging.slice(roles).forEach(r -> data.add(CommunityViews.role(state,
        state.findOne(Sheet.PROJECTS, "id", r.projectId(), Project.class).orElseThrow(), r, staff)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), roles.size());
  }

  private Future<Void> interest(RoutingContext ctx) {
    String roleId = ctx.pathParam("roleId");
    if (!Ids.isUuid(roleId)) {
      throw ApiError.notFound().toException();
    }
    return req.fromBody(ctx, Set.of("message"), ProjectWrites.INTEREST, body -> new JsonObject().put("roleId", roleId)
        .put("message", text(body, "message", ProjectRules.INTEREST_MESSAGE, false)), 201, "interest");
  }
}
