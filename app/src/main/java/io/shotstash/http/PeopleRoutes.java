package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.AccountWrites;
import io.shotstash.people.PersonRules;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.ratelimit.WriteLimit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Set;

/** Administrators manage accounts: {@code POST /api/people}, {@code POST /api/people/:slug/account-level}. */
record PeopleRoutes(Vertx vertx, HttpServices services) {
  void mount(Router router, BodyHandler json) {
    router.post("/api/people").handler(json).handler(ctx -> Routes.run(ctx, create(ctx)));
    router.post("/api/people/:slug/account-level").handler(json).handler(ctx -> Routes.run(ctx, accountLevel(ctx)));
  }

  private Future<Void> create(RoutingContext ctx) {
    Actor.Member admin = Callers.atLeast(ctx, AccountLevel.ADMINISTRATOR);
    return writeCap(admin).compose(v -> {
      return NewAccount.read(ctx, false).params(vertx)
          .compose(params -> services.writes()
              .write(new WriteCommand(AccountWrites.CREATE, admin, "POST", ctx.request().path(), params)))
          .compose(reply -> Envelope.ok(ctx, 201, reply.getJsonObject("person")));
    });
  }

  private Future<Void> accountLevel(RoutingContext ctx) {
    Actor.Member admin = Callers.atLeast(ctx, AccountLevel.ADMINISTRATOR);
    String slug = ctx.pathParam("slug");
    if (!PersonRules.SLUG.matcher(slug).matches()) { // validated before any lookup
      throw ApiError.notFound().toException();
    }
    return writeCap(admin).compose(v -> {
      JsonBody body = JsonBody.of(ctx, Set.of("level"));
      String level = body.string("level");
      if (AccountLevel.parse(level).isEmpty()) {
        body.problem("level", "must be one of user, editor, staff, administrator");
      }
      body.validate();
      return services.writes().write(new WriteCommand(AccountWrites.ACCOUNT_LEVEL, admin, "POST", ctx.request().path(),
          new JsonObject().put("slug", slug).put("level", level)))
          .compose(reply -> Envelope.ok(ctx, 200, reply.getJsonObject("person")));
    });
  }

  /** Every account may make at most 30 writes a minute to the community and moderation routes. */
  private Future<Void> writeCap(Actor.Member member) {
    return WriteLimit.admit(services.limiter(), member.personId());
  }
}
