package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.community.ProjectRules;
import io.shotstash.community.ProjectWrites;
import io.shotstash.community.TextLength;
import io.shotstash.people.PersonRules;
import io.shotstash.publicdata.Slugs;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.ratelimit.WriteLimit;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * What every community route shares: who the caller is, path slugs validated before any lookup,
 * the write gate, and sending a write to the git writer.
 */
final class CommunityRequests {
  private final HttpServices services;

  CommunityRequests(HttpServices services) {
    this.services = services;
  }

  HttpServices services() {
    return services;
  }

  boolean staff(RoutingContext ctx) {
    return Callers.actor(ctx) instanceof Actor.Member m && m.atLeast(AccountLevel.STAFF);
  }

  static String personSlug(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    if (slug == null || !PersonRules.SLUG.matcher(slug).matches()) {
      throw ApiError.notFound().toException(); // validated before any lookup
    }
    return slug;
  }

  static String projectSlug(RoutingContext ctx) {
    String slug = ctx.pathParam("slug");
    if (slug == null || !Slugs.PROJECT.matcher(slug.toLowerCase(Locale.ROOT)).matches()) {
      throw ApiError.notFound().toException();
    }
    return slug.toLowerCase(Locale.ROOT);
  }

  /** The signed-in member (401 otherwise) after the 30-writes-a-minute cap. */
  Future<Actor.Member> writer(RoutingContext ctx) {
    Actor.Member m = Callers.member(ctx);
    return WriteLimit.admit(services.limiter(), m.personId()).map(m);
  }

  Future<JsonObject> write(RoutingContext ctx, Actor.Member m, String action, JsonObject params) {
    return services.writes()
        .write(new WriteCommand(action, m, ctx.request().method().name(), ctx.request().path(), params));
  }

  /** A write that takes no body fields, whose reply field {@code key} is the answer (null: the whole reply). */
  Future<Void> simple(RoutingContext ctx, String action, JsonObject params, String key) {
    return writer(ctx).compose(m -> {
      if (ctx.body() != null && ctx.body().length() > 0) {
        JsonBody.of(ctx, Set.of()).validate();
      }
      return write(ctx, m, action, params);
    })
        .compose(reply -> Envelope.ok(ctx, 200, key == null ? reply : reply.getValue(key)));
  }

  /**
   * A write from a JSON body of the fields {@code keys}: {@code params} reads them into the command's
   * params, noting each problem in the body (any makes one 422); the reply field {@code key} is the
   * answer, with {@code status} (null: the whole reply).
   */
  Future<Void> fromBody(RoutingContext ctx, Set<String> keys, String action, Function<JsonBody, JsonObject> params,
      int status, String key) {
    return writer(ctx).compose(m -> {
      JsonBody body = JsonBody.of(ctx, keys);
      JsonObject p = params.apply(body);
      body.validate();
      return write(ctx, m, action, p);
    }).compose(reply -> Envelope.ok(ctx, status, key == null ? reply : reply.getValue(key)));
  }

  /** A text field, stripped, with its length problem (or "is required") noted in the body. */
  static String text(JsonBody body, String field, TextLength length, boolean required) {
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

  Future<Void> tag(RoutingContext ctx, String type, boolean assign) {
    String slug = "person".equals(type) ? personSlug(ctx) : projectSlug(ctx);
    String namespace = ctx.pathParam("namespace");
    String tag = ctx.pathParam("tag");
    if (!ProjectRules.TAG_NAMESPACES.contains(namespace) || !Slugs.TAG.matcher(tag).matches()) {
      throw ApiError.notFound().toException();
    }
    return simple(ctx, assign ? ProjectWrites.ASSIGN_TAG : ProjectWrites.UNASSIGN_TAG,
        new JsonObject().put("type", type)
            .put("slug", slug).put("namespace", namespace).put("tagSlug", tag),
        null);
  }
}
