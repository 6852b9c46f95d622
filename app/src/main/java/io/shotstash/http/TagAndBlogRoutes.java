package io.shotstash.http;

import static io.shotstash.http.CommunityRequests.text;

import io.shotstash.bus.ApiError;
import io.shotstash.community.CommunityViews;
import io.shotstash.community.ProjectRules;
import io.shotstash.community.ProjectWrites;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.Tag;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/** Tags and blog posts on the community API (docs/community-api.md → Tags, Blog posts). */
record TagAndBlogRoutes(CommunityRequests req) {
  void mount(Router router, BodyHandler json) {
    router.get("/api/tags").handler(ctx -> Routes.run(ctx, listTags(ctx)));
    router.post("/api/tags").handler(json).handler(ctx -> Routes.run(ctx, createTag(ctx)));
    router.get("/api/blog-posts").handler(ctx -> Routes.run(ctx, listPosts(ctx)));
    router.get("/api/blog-posts/:slug").handler(ctx -> Routes.run(ctx, post(ctx)));
  }

  private Future<Void> listTags(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of("namespace"));
    String ns = ctx.queryParams().get("namespace");
    List<Tag> tags = req.services().publicState().current().all(Sheet.TAGS, Tag.class).stream()
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
    return req.fromBody(ctx, Set.of("namespace", "slug", "title"), ProjectWrites.CREATE_TAG, body -> {
      String namespace = body.string("namespace");
      body.problem("namespace", ProjectRules.namespaceProblem(namespace));
      String title = text(body, "title", ProjectRules.TAG_TITLE, true);
      String slug = body.string("slug");
      if (slug != null) {
        body.problem("slug", ProjectRules.tagSlugProblem(slug));
      }
      return new JsonObject().put("namespace", namespace).put("title", title).put("tagSlug", slug);
    }, 201, "tag");
  }

  private Future<Void> listPosts(RoutingContext ctx) {
    Paging paging = Paging.read(ctx, Set.of());
    PublicState state = req.services().publicState().current();
    boolean staff = req.staff(ctx);
    List<BlogPost> posts = state.all(Sheet.BLOG_POSTS, BlogPost.class).stream()
        .sorted(Comparator.comparing(BlogPost::postedAt, Comparator.nullsFirst(Comparator.naturalOrder())).reversed())
        .toList();
    JsonArray data = new JsonArray();
    paging.slice(posts).forEach(p -> data.add(postJson(state, p, staff, false)));
    return Envelope.page(ctx, data, paging.page(), paging.perPage(), posts.size());
  }

  private Future<Void> post(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    PublicState state = req.services().publicState().current();
    BlogPost p = slug == null ? null : state.get(Sheet.BLOG_POSTS, slug, BlogPost.class);
    if (p == null) {
      throw ApiError.notFound().toException();
    }
    return Envelope.ok(ctx, 200, postJson(state, p, req.staff(ctx), true));
  }

  private static JsonObject postJson(PublicState state, BlogPost p, boolean staff, boolean withBody) {
    JsonObject json = new JsonObject().put("id", p.id()).put("slug", p.slug()).put("title", p.title())
        .put("author", CommunityViews.personRef(state, p.authorId(), staff))
        .put("postedAt", p.postedAt() == null ? null : p.postedAt().toString());
    return withBody ? json.put("body", p.body()) : json;
  }
}
