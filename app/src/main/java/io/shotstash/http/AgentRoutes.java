package io.shotstash.http;

import static io.shotstash.http.AdminRoutes.gate;
import static io.shotstash.http.AdminRoutes.level;
import static io.shotstash.http.AdminRoutes.require;
import static io.shotstash.http.AdminRoutes.slug;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.moderation.ModerationVerticle;
import io.shotstash.moderation.ModerationWrites;
import io.shotstash.people.PersonRules;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Agent accounts and their grants under {@code /api/admin/agents} (docs/moderation-api.md → Agents
 * and grants): the list with each agent's track record, creating an agent, giving and revoking a
 * grant, and withdrawing an agent's votes.
 */
record AgentRoutes(AdminRoutes admin, HttpServices services, Grants grants) {
  void mount(Router router, BodyHandler json) {
    router.get("/api/admin/agents").handler(ctx -> Routes.run(ctx, agents(ctx)));
    router.post("/api/admin/agents").handler(ctx -> gate(ctx, level(ctx, AccountLevel.ADMINISTRATOR)));
    router.post("/api/admin/agents").handler(json).handler(ctx -> Routes.run(ctx, createAgent(ctx)));
    router.post("/api/admin/agents/:slug/grants").handler(ctx -> gate(ctx, level(ctx, AccountLevel.ADMINISTRATOR)));
    router.post("/api/admin/agents/:slug/grants").handler(json).handler(ctx -> Routes.run(ctx, createGrant(ctx)));
    router.delete("/api/admin/agents/:slug/grants/:id")
        .handler(ctx -> gate(ctx, level(ctx, AccountLevel.ADMINISTRATOR)));
    router.delete("/api/admin/agents/:slug/grants/:id").handler(ctx -> Routes.run(ctx, revokeGrant(ctx)));
    router.post("/api/admin/agents/:slug/withdraw-votes").handler(ctx -> gate(ctx, level(ctx, AccountLevel.STAFF)));
    router.post("/api/admin/agents/:slug/withdraw-votes").handler(json).handler(ctx -> Routes.run(ctx, withdraw(ctx)));
  }

  private Future<Void> agents(RoutingContext ctx) {
    require(level(ctx, AccountLevel.STAFF));
    Routes.noQuery(ctx);
    return admin.moderation(ModerationVerticle.Actions.AGENTS, new JsonObject())
        .compose(r -> Envelope.ok(ctx, 200, r.getJsonArray("agents")));
  }

  private Future<Void> createAgent(RoutingContext ctx) {
    Routes.noQuery(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("slug", "fullName"));
    String slug = body.string("slug");
    String fullName = body.string("fullName");
    body.problem("slug", PersonRules.slugProblem(slug));
    body.problem("fullName", PersonRules.fullNameProblem(fullName));
    body.validate();
    return admin
        .write(ctx, ModerationWrites.CREATE_AGENT, new JsonObject().put("slug", slug).put("fullName", fullName.strip()))
        .compose(r -> Envelope.ok(ctx, 201, r.getJsonObject("person")));
  }

  private Person agent(String slug) {
    return services.publicState().current().personBySlug(slug).filter(Person::isAgentAccount)
        .orElseThrow(() -> ApiError.notFound().toException());
  }

  private Future<Void> createGrant(RoutingContext ctx) {
    Routes.noQuery(ctx);
    Person agent = agent(slug(ctx));
    JsonBody body = JsonBody.of(ctx, Set.of("scopes", "expiresAt"));
    JsonObject raw = ctx.body().length() == 0 ? new JsonObject() : ctx.body().asJsonObject();
    List<String> scopes = new ArrayList<>();
    if (!(raw.getValue("scopes") instanceof JsonArray arr) || arr.isEmpty()) {
      body.problem("scopes", "must list moderation:read, moderation:vote and/or moderation:purge");
    } else {
      for (Object s : arr) {
        if (!(s instanceof String scope) || !Grants.SCOPES.contains(scope)) {
          body.problem("scopes", "must list moderation:read, moderation:vote and/or moderation:purge");
        } else if (!scopes.contains(scope)) {
          scopes.add(scope);
        }
      }
    }
    OffsetDateTime expires = null;
    String expiresAt = body.string("expiresAt");
    if (expiresAt != null) {
      try {
        expires = OffsetDateTime.parse(expiresAt);
        if (!expires.toInstant().isAfter(Instant.now())) {
          body.problem("expiresAt", "must be in the future");
        }
      } catch (DateTimeParseException e) {
        body.problem("expiresAt", "must be an ISO date-time");
      }
    }
    body.validate();
    Actor.Member admin = (Actor.Member) Callers.actor(ctx);
    return grants.create(agent.id(), scopes, expires, admin.personId()).compose(r -> Envelope.ok(ctx, 201, r));
  }

  private Future<Void> revokeGrant(RoutingContext ctx) {
    Routes.noQuery(ctx);
    Person agent = agent(slug(ctx));
    String id = ctx.pathParam("id");
    if (!Ids.isUuid(id)) {
      throw ApiError.notFound().toException();
    }
    return grants.revoke(agent.id(), id)
        .compose(revoked -> revoked ? Envelope.ok(ctx, 200, new JsonObject().put("revoked", true))
            : Envelope.error(ctx, ApiError.notFound()));
  }

  private Future<Void> withdraw(RoutingContext ctx) {
    Routes.noQuery(ctx);
    String slug = slug(ctx);
    // it takes no input: an empty body or {} (anything else is an unknown key, 422, like everywhere)
    JsonBody.of(ctx, Set.of()).validate();
    return admin.write(ctx, ModerationWrites.WITHDRAW, new JsonObject().put("agentSlug", slug))
        .compose(r -> Envelope.ok(ctx, 200, r));
  }
}
