package io.shotstash.http;

import static io.shotstash.http.AdminRoutes.gate;
import static io.shotstash.http.AdminRoutes.level;
import static io.shotstash.http.AdminRoutes.agentWith;
import static io.shotstash.http.AdminRoutes.staffOr;
import static io.shotstash.http.AdminRoutes.require;
import static io.shotstash.http.AdminRoutes.slug;
import static io.shotstash.http.AdminRoutes.query;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.moderation.Evidence;
import io.shotstash.moderation.ModerationBodyRules;
import io.shotstash.moderation.ModerationTarget;
import io.shotstash.moderation.ModerationVerticle;
import io.shotstash.moderation.ModerationWrites;
import io.shotstash.moderation.PrivateDataWrites;
import io.shotstash.moderation.Refusal;
import io.shotstash.moderation.RosterQuery;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Set;

/**
 * The moderation routes under {@code /api/admin} (docs/moderation-api.md): the roster and one
 * member's detail, votes, the agent purge, the spam-purge log and its unblock, purge-orphans. Reads
 * go to the {@code moderation} verticle; writes to the git writer, where their rules live
 * ({@code moderation/ModerationWrites}, {@code moderation/AgentPurge}).
 */
record ModerationRoutes(AdminRoutes admin, HttpServices services) {
  void mount(Router router, BodyHandler json) {
    router.get("/api/admin/members").handler(ctx -> Routes.run(ctx, roster(ctx)));
    router.get("/api/admin/members/:slug").handler(ctx -> Routes.run(ctx, detail(ctx)));
    router.post("/api/admin/members/:slug/vote").handler(ctx -> gate(ctx, staffOr(ctx, "moderation:vote")));
    router.post("/api/admin/members/:slug/vote").handler(json).handler(ctx -> Routes.run(ctx, vote(ctx)));
    router.delete("/api/admin/members/:slug/vote").handler(ctx -> gate(ctx, agentWith(ctx, "moderation:vote")));
    router.delete("/api/admin/members/:slug/vote").handler(ctx -> Routes.run(ctx, unvote(ctx)));
    router.post("/api/admin/members/:slug/purge").handler(ctx -> gate(ctx, agentWith(ctx, "moderation:purge")));
    router.post("/api/admin/members/:slug/purge").handler(json).handler(ctx -> Routes.run(ctx, purge(ctx)));
    router.get("/api/admin/spam-purges").handler(ctx -> Routes.run(ctx, purges(ctx)));
    router.post("/api/admin/spam-purges/:id/unblock").handler(ctx -> gate(ctx, level(ctx, AccountLevel.STAFF)));
    router.post("/api/admin/spam-purges/:id/unblock").handler(json).handler(ctx -> Routes.run(ctx, unblock(ctx)));
    router.post("/api/admin/private-data/purge-orphans")
        .handler(ctx -> gate(ctx, level(ctx, AccountLevel.ADMINISTRATOR)));
    router.post("/api/admin/private-data/purge-orphans").handler(json)
        .handler(ctx -> Routes.run(ctx, purgeOrphans(ctx)));
  }

  private Future<Void> roster(RoutingContext ctx) {
    require(staffOr(ctx, "moderation:read"));
    RosterQuery query = RosterQuery.parse(query(ctx));
    return admin.moderation(ModerationVerticle.Actions.ROSTER, new JsonObject().put("query", query.toJson())
        .put("agent", Callers.actor(ctx) instanceof Actor.Agent))
        .compose(r -> Envelope.page(ctx, r.getJsonArray("rows"), r.getInteger("page"), r.getInteger("perPage"),
            r.getLong("totalItems")));
  }

  private Future<Void> detail(RoutingContext ctx) {
    require(staffOr(ctx, "moderation:read"));
    Routes.noQuery(ctx);
    return admin.moderation(ModerationVerticle.Actions.DETAIL, new JsonObject().put("slug", slug(ctx))
        .put("agent", Callers.actor(ctx) instanceof Actor.Agent)).compose(d -> Envelope.ok(ctx, 200, d));
  }

  private Future<Void> purges(RoutingContext ctx) {
    require(staffOr(ctx, "moderation:read"));
    Paging paging = Paging.read(ctx, Set.of("by", "slug", "since", "blocking"));
    JsonObject body = new JsonObject().put("page", paging.page()).put("perPage", paging.perPage());
    String by = ctx.queryParams().get("by");
    if (by != null && !by.matches("agent|human|scheduled|(agent|human)-[a-z0-9][a-z0-9-]{1,49}")) {
      throw ApiError.validation("by", "must be agent, human, scheduled, agent-<slug> or human-<slug>").toException();
    }
    String since = ctx.queryParams().get("since");
    if (since != null) {
      try {
        body.put("since",
            (since.length() == 10 ? Instant.parse(since + "T00:00:00Z") : Instant.parse(since)).toString());
      } catch (DateTimeParseException e) {
        throw ApiError.validation("since", "must be a date or a date-time").toException();
      }
    }
    String blocking = ctx.queryParams().get("blocking");
    if (blocking != null && !blocking.matches("true|false")) {
      throw ApiError.validation("blocking", "must be true or false").toException();
    }
    body.put("by", by).put("slug", ctx.queryParams().get("slug"))
        .put("blocking", blocking == null ? null : Boolean.valueOf(blocking));
    return admin.moderation(ModerationVerticle.Actions.PURGES, body)
        .compose(
            r -> Envelope.page(ctx, r.getJsonArray("items"), paging.page(), paging.perPage(), r.getLong("totalItems")));
  }

  // ---- votes and purges ----

  /** The body's flags (none when absent); a problem with them goes into the 422. */
  private static List<String> flags(JsonBody body, JsonObject raw) {
    Object flags = raw.getValue("flags");
    String problem = ModerationBodyRules.flagsProblem(flags);
    body.problem("flags", problem);
    return problem == null ? ModerationBodyRules.flags(flags) : List.of();
  }

  private Future<Void> vote(RoutingContext ctx) {
    Routes.noQuery(ctx);
    String slug = slug(ctx);
    boolean agent = Callers.actor(ctx) instanceof Actor.Agent;
    JsonBody body = JsonBody.of(ctx, agent ? Set.of("verdict", "reasoning", "flags") : Set.of("verdict", "reasoning"));
    JsonObject raw = ctx.body().length() == 0 ? new JsonObject() : ctx.body().asJsonObject();
    String verdict = body.string("verdict");
    if (!"spam".equals(verdict) && !"legit".equals(verdict)) {
      body.problem("verdict", "must be spam or legit");
    }
    String reasoning = body.string("reasoning");
    body.problem("reasoning", agent ? ModerationBodyRules.publicTextProblem(reasoning, true)
        : ModerationBodyRules.lengthProblem(reasoning));
    List<String> flags = agent ? flags(body, raw) : List.of();
    selfCheck(ctx, body, slug);
    body.validate();
    return admin.write(ctx, ModerationWrites.VOTE, new JsonObject().put("slug", slug).put("verdict", verdict)
        .put("reasoning", reasoning == null || reasoning.isBlank() ? null : reasoning)
        .put("flags", new JsonArray(flags)))
        .compose(r -> Envelope.ok(ctx, 200, r));
  }

  /** Voting on or purging yourself, or an agent account, is a validation failure. */
  private void selfCheck(RoutingContext ctx, JsonBody body, String slug) {
    services.publicState().current().personBySlug(slug) // no such member: 404 from the writer
        .flatMap(target -> ModerationTarget.problem(Callers.actor(ctx), target))
        .ifPresent(problem -> body.problem("slug", problem));
  }

  private Future<Void> unvote(RoutingContext ctx) {
    Routes.noQuery(ctx);
    return admin.write(ctx, ModerationWrites.UNVOTE, new JsonObject().put("slug", slug(ctx)))
        .compose(r -> Envelope.ok(ctx, 200, r));
  }

  private Future<Void> purge(RoutingContext ctx) {
    Routes.noQuery(ctx);
    String slug = slug(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("reason", "flags", "evidence", "dryRun"));
    JsonObject raw = ctx.body().length() == 0 ? new JsonObject() : ctx.body().asJsonObject();
    String reason = body.string("reason");
    body.problem("reason", ModerationBodyRules.publicTextProblem(reason, true));
    List<String> flags = flags(body, raw);
    Boolean dryRun = body.bool("dryRun");
    Object evidence = raw.getValue("evidence");
    JsonArray items = evidence instanceof JsonArray list ? list : new JsonArray();
    if (items.isEmpty() || items.size() > 5) {
      body.problem("evidence", "must list 1 to 5 records");
    }
    selfCheck(ctx, body, slug);
    body.validate();
    // each item's shape before anything is looked up; else 422 evidence_invalid naming the first bad one
    JsonArray checked = new JsonArray();
    for (int i = 0; i < items.size(); i++) {
      try {
        checked.add(Evidence.parse(items.getValue(i)).toJson());
      } catch (Evidence.Invalid e) {
        throw Refusal.evidenceInvalid(i, e.getMessage()).error().toException();
      }
    }
    return admin.write(ctx, ModerationWrites.AGENT_PURGE, new JsonObject().put("slug", slug).put("reason", reason)
        .put("flags", new JsonArray(flags)).put("evidence", checked).put("dryRun", Boolean.TRUE.equals(dryRun)))
        .compose(r -> Envelope.ok(ctx, 200, r));
  }

  private Future<Void> unblock(RoutingContext ctx) {
    Routes.noQuery(ctx);
    String id = ctx.pathParam("id");
    if (!Ids.isUuid(id)) {
      throw ApiError.notFound().toException();
    }
    JsonBody body = JsonBody.of(ctx, Set.of("reason"));
    String reason = body.string("reason");
    body.problem("reason", ModerationBodyRules.lengthProblem(reason));
    body.validate();
    return admin.write(ctx, ModerationWrites.UNBLOCK, new JsonObject().put("id", id).put("reason", reason))
        .compose(r -> Envelope.ok(ctx, 200, r));
  }

  private Future<Void> purgeOrphans(RoutingContext ctx) {
    Routes.noQuery(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("apply"));
    Boolean apply = body.bool("apply");
    if (apply == null) {
      body.problem("apply", "is required: false counts, true deletes");
    }
    body.validate();
    return admin.write(ctx, PrivateDataWrites.PURGE_ORPHANS, new JsonObject().put("apply", apply))
        .compose(r -> Envelope.ok(ctx, 200, r));
  }
}
