package io.shotstash.http;

import io.shotstash.auth.Tokens;
import io.shotstash.bus.ApiError;
import io.shotstash.people.PersonRules;
import io.shotstash.people.PrivateSql;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.Set;

/**
 * {@code POST /api/_webhooks/email-bounce} (bearer secret SHOTSTASH_BOUNCE_SECRET): a mail
 * provider reports a bounce. A terminal bounce for a known email is stored once and never cleared;
 * the roster shows it as {@code emailBounce} and the signal {@code email-bounced:<type>}.
 */
final class WebhookRoutes {
  private final HttpServices services;

  WebhookRoutes(HttpServices services) {
    this.services = services;
  }

  void mount(Router router, BodyHandler json) {
    router.post("/api/_webhooks/email-bounce").handler(json).handler(ctx -> Routes.run(ctx, bounce(ctx)));
  }

  private Future<Void> bounce(RoutingContext ctx) {
    String secret = services.config().moderation().bounceSecret();
    if (secret == null) {
      throw ApiError.of(503, "bounces_disabled", "SHOTSTASH_BOUNCE_SECRET is not set").toException();
    }
    if (!Tokens.sameSecret(Callers.bearerToken(ctx), secret)) {
      throw ApiError.of(401, "unauthenticated", "The bounce secret is missing or wrong").toException();
    }
    JsonBody body = JsonBody.of(ctx, Set.of("email", "type", "terminal"));
    String email = body.string("email");
    body.problem("email", PersonRules.emailProblem(email));
    String type = body.string("type");
    if (type == null || !type.matches("[a-z][a-z0-9-]{0,39}")) {
      body.problem("type", "must be a short lowercase word, e.g. hard, complaint");
    }
    Boolean terminal = body.bool("terminal");
    body.validate();
    if (Boolean.FALSE.equals(terminal)) {
      return Envelope.ok(ctx, 200, new JsonObject().put("stored", false));
    }
    JsonObject bounce = new JsonObject().put("type", type).put("at", Instant.now().toString());
    return services.pool().preparedQuery(PrivateSql.STORE_BOUNCE)
        .execute(Tuple.of(PersonRules.normalizeEmail(email), bounce))
        .compose(r -> Envelope.ok(ctx, 200, new JsonObject().put("stored", r.rowCount() > 0)));
  }
}
