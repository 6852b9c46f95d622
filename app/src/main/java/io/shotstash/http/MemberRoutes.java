package io.shotstash.http;

import static io.shotstash.http.CommunityRequests.personSlug;
import static io.shotstash.http.CommunityRequests.text;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.community.CommunityViews;
import io.shotstash.community.PeopleWrites;
import io.shotstash.media.Storage;
import io.shotstash.people.PersonRules;
import io.shotstash.people.PersonView;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.ProjectMembership;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * People on the community API (docs/community-api.md → People): the list, one person, editing,
 * deactivating and reactivating, the avatar, the staff purge and tags on a person. Every write is
 * a command to the git writer, whose rule is in {@link PeopleWrites}.
 */
record MemberRoutes(CommunityRequests req) {
  void mount(Router router, BodyHandler json) {
    router.get("/api/people").handler(ctx -> Routes.run(ctx, listPeople(ctx)));
    router.get("/api/people/:slug").handler(ctx -> Routes.run(ctx, person(ctx)));
    router.patch("/api/people/:slug").handler(json).handler(ctx -> Routes.run(ctx, editPerson(ctx)));
    router.post("/api/people/:slug/deactivate").handler(json).handler(ctx -> Routes.run(ctx,
        req.simple(ctx, PeopleWrites.DEACTIVATE, new JsonObject().put("slug", personSlug(ctx)), "person")));
    router.post("/api/people/:slug/reactivate").handler(json).handler(ctx -> Routes.run(ctx,
        req.simple(ctx, PeopleWrites.REACTIVATE, new JsonObject().put("slug", personSlug(ctx)), "person")));
    router.post("/api/people/:slug/purge").handler(json).handler(ctx -> Routes.run(ctx, purge(ctx)));
    router.put("/api/people/:slug/avatar").handler(ctx -> Routes.run(ctx, putAvatar(ctx)));
    router.delete("/api/people/:slug/avatar").handler(ctx -> Routes.run(ctx,
        req.simple(ctx, PeopleWrites.AVATAR, new JsonObject().put("slug", personSlug(ctx)).putNull("avatarKey"),
            "person")));
    router.post("/api/people/:slug/tags/:namespace/:tag").handler(json)
        .handler(ctx -> Routes.run(ctx, req.tag(ctx, "person", true)));
    router.delete("/api/people/:slug/tags/:namespace/:tag")
        .handler(ctx -> Routes.run(ctx, req.tag(ctx, "person", false)));
  }

  private Future<Void> listPeople(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of("q", "sort"));
    boolean staff = req.staff(ctx);
    String q = ctx.queryParams().get("q");
    String sort = ctx.queryParams().get("sort") == null ? "-createdAt" : ctx.queryParams().get("sort");
    Comparator<Person> order = switch (sort.replaceFirst("^-", "")) {
      case "createdAt" -> Comparator.comparing(Person::createdAt, Comparator.nullsFirst(Comparator.naturalOrder()));
      case "fullName" -> Comparator.comparing(p -> p.fullName().toLowerCase(Locale.ROOT));
      case "slug" -> Comparator.comparing(Person::slug);
      default ->
        throw ApiError.validation("sort", "must be createdAt, fullName or slug (with - for descending)").toException();
    };
    if (sort.startsWith("-")) {
      order = order.reversed();
    }
    String needle = q == null ? null : q.toLowerCase(Locale.ROOT);
    List<Person> people = req.services().publicState().current().all(Sheet.PEOPLE, Person.class).stream()
        .filter(p -> staff || !p.isDeactivated())
        .filter(
            p -> needle == null || p.slug().contains(needle) || p.fullName().toLowerCase(Locale.ROOT).contains(needle))
        .sorted(order.thenComparing(Person::slug)).toList();
    JsonArray data = new JsonArray();
    paging.slice(people).forEach(p -> data.add(staff ? PersonView.staffJson(p, null) : PersonView.publicJson(p)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), people.size());
  }

  private Future<Void> person(RoutingContext ctx) {
    String slug = personSlug(ctx);
    Routes.noQuery(ctx);
    boolean staff = req.staff(ctx);
    PublicState state = req.services().publicState().current();
    Person p = state.personBySlug(slug).filter(x -> staff || !x.isDeactivated())
        .orElseThrow(() -> ApiError.notFound().toException());
    JsonArray memberships = new JsonArray();
    state.find(Sheet.PROJECT_MEMBERSHIPS, "personId", p.id(), ProjectMembership.class)
        .forEach(m -> memberships.add(CommunityViews.membership(state, m, staff)));
    Future<String> email = staff ? req.services().sessions().emailOf(p.id()) : Future.succeededFuture(null);
    return email.compose(e -> Envelope.ok(ctx, 200, (staff ? PersonView.staffJson(p, e) : PersonView.publicJson(p))
        .put("memberships", memberships).put("tags", CommunityViews.tags(state, "person", p.id()))));
  }

  private Future<Void> editPerson(RoutingContext ctx) {
    String slug = personSlug(ctx);
    return req.fromBody(ctx, Set.of("fullName", "bio", "slug"), PeopleWrites.UPDATE, body -> {
      JsonObject params = new JsonObject().put("slug", slug);
      body.putChecked(params, "fullName", "fullName", PersonRules::fullNameProblem);
      if (body.has("bio")) {
        String bio = body.string("bio");
        body.problem("bio", PeopleWrites.bioProblem(bio));
        params.put("bio", bio);
      }
      body.putChecked(params, "newSlug", "slug", PersonRules::slugProblem);
      return params;
    }, 200, "person");
  }

  /** Avatars: PNG, JPEG, WebP or GIF, at most 2 MiB, streamed to storage, then set through the writer. */
  static final long AVATAR_LIMIT = 2L * 1024 * 1024;
  static final Map<String, String> AVATAR_TYPES =
      Map.of("image/png", "png", "image/jpeg", "jpg", "image/webp", "webp", "image/gif", "gif");

  private Future<Void> putAvatar(RoutingContext ctx) {
    String slug = personSlug(ctx);
    String type = ctx.request().getHeader("Content-Type");
    String ext = type == null ? null : AVATAR_TYPES.get(type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT));
    var body = Uploads.body(ctx.request());
    return req.writer(ctx).compose(m -> {
      if (ext == null) {
        throw ApiError.validation("Content-Type", "must be image/png, image/jpeg, image/webp or image/gif")
            .toException();
      }
      String file = Ids.uuid7() + "." + ext;
      String key = Storage.avatarKey(file);
      ApiError tooLarge = ApiError.of(413, "body_too_large", "An avatar is at most 2 MiB");
      Uploads.continueIfExpected(ctx.request());
      return req.services().storage().write(key, body, AVATAR_LIMIT)
          .recover(err -> Future.failedFuture(Uploads.refusalFor(err, tooLarge)))
          .compose(written -> written.size() == 0
              ? req.services().storage().delete(key).compose(v -> Future.failedFuture(
                  ApiError.validation("body", "the image is empty").toException()))
              : req.write(ctx, m, PeopleWrites.AVATAR, new JsonObject().put("slug", slug).put("avatarKey", file))
                  .recover(err -> req.services().storage().delete(key).transform(v -> Future.failedFuture(err))));
    }).compose(reply -> Envelope.ok(ctx, 200, reply.getValue("person")));
  }

  private Future<Void> purge(RoutingContext ctx) {
    Actor actor = Callers.actor(ctx);
    if (!(actor instanceof Actor.Member m) || !m.atLeast(AccountLevel.ADMINISTRATOR)) {
      throw ApiError.notFound().toException(); // a staff-only surface: nobody else learns it exists
    }
    String slug = personSlug(ctx);
    return req.fromBody(ctx, Set.of("reason", "spam"), PeopleWrites.PURGE, body -> {
      String reason = text(body, "reason", PeopleWrites.PURGE_REASON, true);
      Boolean spam = body.bool("spam");
      return new JsonObject().put("slug", slug).put("reason", reason).put("spam", spam == null || spam);
    }, 200, null);
  }
}
