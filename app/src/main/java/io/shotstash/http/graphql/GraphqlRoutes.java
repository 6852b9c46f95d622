package io.shotstash.http.graphql;

import graphql.GraphQL;
import graphql.language.Document;
import graphql.language.OperationDefinition;
import graphql.parser.InvalidSyntaxException;
import graphql.parser.Parser;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.shotstash.http.Callers;
import io.shotstash.http.HttpServices;
import io.shotstash.ratelimit.RateLimiter;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.TimeoutHandler;
import io.vertx.ext.web.handler.graphql.ExecutionInputBuilderWithContext;
import io.vertx.ext.web.handler.graphql.GraphQLHandler;
import io.vertx.ext.web.handler.graphql.GraphiQLHandler;
import io.vertx.ext.web.handler.graphql.GraphiQLHandlerOptions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GraphQL over HTTP at {@code /graphql} (POST JSON; GET for queries only), subscriptions over the
 * WebSocket at the same path (graphql-transport-ws), and GraphiQL at {@code /graphiql}.
 *
 * <p>The caller is resolved by {@link Callers#resolve} on the request, as for the REST API (session
 * cookie or bearer session; cookie callers must POST JSON). The WebSocket ({@link GraphqlSockets})
 * is authenticated by the upgrade's cookie or {@code Authorization} header, or by
 * {@code Authorization: Bearer ...} in the connection_init payload, which then wins for that
 * socket; the token is resolved again before each operation.
 */
public record GraphqlRoutes(Vertx vertx, HttpServices services) {
  private static final Logger log = LoggerFactory.getLogger(GraphqlRoutes.class);
  public static final String PATH = "/graphql";
  static final long BODY_LIMIT = 256 * 1024;
  private static final String GRAPHIQL_CSP = "default-src 'self'; script-src 'self' 'unsafe-inline'; "
      + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
      + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

  /**
   * The executable schema wired to the fetchers, for every HTTP verticle of this Vert.x instance
   * (it holds no per-verticle state: each subscription keeps the context it started on). Blocking
   * for about half a second on a cold JVM: built once, at start.
   */
  public static GraphQL build(Vertx vertx, RateLimiter limiter) {
    return GraphqlSchema.build(vertx, limiter);
  }

  public void mount(Router router, Callers callers) {
    GraphQL graphQL = services.graphql();
    GraphqlSockets sockets = new GraphqlSockets(vertx, graphQL, callers, services.publicState());
    GraphQLHandler http = GraphQLHandler.builder(graphQL).beforeExecute(GraphqlRoutes::beforeHttpExecute).build();

    router.route(PATH).handler(ctx -> common(ctx, callers));
    router.route(PATH).handler(sockets); // takes WebSocket upgrades (each operation resolves its caller), lets the rest on
    router.route(PATH).handler(callers::resolve);
    router.route(PATH).handler(TimeoutHandler.create(30_000));
    router.get(PATH).handler(GraphqlRoutes::refuseChangesOverGet);
    router.post(PATH).handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT));
    router.route(PATH).handler(http);
    router.route(PATH).failureHandler(this::onFailure);

    GraphiQLHandler graphiql = GraphiQLHandler.create(vertx, new GraphiQLHandlerOptions().setEnabled(true)
        .setGraphQLUri(PATH).setGraphQLWSEnabled(true).setGraphWSQLUri(PATH));
    router.route("/graphiql*").handler(ctx -> {
      ctx.response().putHeader("Content-Security-Policy", GRAPHIQL_CSP).putHeader("X-Frame-Options", "DENY");
      ctx.next();
    });
    router.route("/graphiql*").subRouter(graphiql.router());
  }

  /**
   * No caching. Cookie callers (CSRF): a WebSocket must be opened from this site (no cross-site
   * hijacking), and a POST must be JSON (the rule {@link Callers#resolve} enforces, answered here in
   * the GraphQL error shape).
   */
  private void common(RoutingContext ctx, Callers callers) {
    HttpServerRequest req = ctx.request();
    ctx.response().putHeader("Cache-Control", "no-store");
    boolean viaCookie = !hasBearer(req) && Callers.hasSessionCookie(req);
    // no Origin: not a browser; else it must name this site (the public origin when one is set)
    if (viaCookie && req.canUpgradeToWebSocket() && req.getHeader("Origin") != null && !callers.sameOrigin(ctx)) {
      send(ctx, 403, "A signed-in WebSocket must be opened from this site", "FORBIDDEN");
      return;
    }
    if (viaCookie && req.method() == HttpMethod.POST && !isJson(req.getHeader("Content-Type"))) {
      send(ctx, 403, "A signed-in request must be sent as JSON", "FORBIDDEN");
      return;
    }
    ctx.next();
  }

  private static boolean hasBearer(HttpServerRequest req) {
    String header = req.getHeader("Authorization");
    return header != null && header.regionMatches(true, 0, "Bearer ", 0, 7);
  }

  private static boolean isJson(String contentType) {
    return contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/json");
  }

  // ---- HTTP ----

  private static void beforeHttpExecute(ExecutionInputBuilderWithContext<RoutingContext> input) {
    input.builder().graphQLContext(Map.of(GraphqlAuth.TRANSPORT, GraphqlAuth.HTTP,
        GraphqlAuth.ACTOR, Callers.actor(input.context())));
  }

  /** GraphQL over HTTP: GET runs queries only; a mutation or subscription answers 405. */
  private static void refuseChangesOverGet(RoutingContext ctx) {
    String query = ctx.queryParams().get("query");
    Optional<OperationDefinition.Operation> op = query == null ? Optional.empty()
        : operation(query, ctx.queryParams().get("operationName"));
    if (op.isPresent() && op.get() != OperationDefinition.Operation.QUERY) {
      ctx.response().putHeader("Allow", "POST");
      send(ctx, 405, op.get() == OperationDefinition.Operation.MUTATION ? "Mutations must be sent with POST"
          : "Subscriptions run over the WebSocket", "METHOD_NOT_ALLOWED");
      return;
    }
    ctx.next();
  }

  /** The operation the document would run, if it parses and names one unambiguously. */
  static Optional<OperationDefinition.Operation> operation(String query, String operationName) {
    Document doc;
    try {
      doc = new Parser().parseDocument(query);
    } catch (InvalidSyntaxException e) {
      return Optional.empty(); // the handler answers the syntax error
    }
    List<OperationDefinition> ops = doc.getDefinitionsOfType(OperationDefinition.class);
    if (operationName == null || operationName.isEmpty()) {
      return ops.size() == 1 ? Optional.of(ops.get(0).getOperation()) : Optional.empty();
    }
    return ops.stream().filter(o -> operationName.equals(o.getName())).findFirst()
        .map(OperationDefinition::getOperation);
  }

  /** Failures before or around execution (bad JSON, wrong method, body too large...), as GraphQL errors. */
  private void onFailure(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    ApiError refusal = failure == null ? null : ApiError.from(failure);
    if (refusal == null && failure != null) {
      refusal = Unavailable.of(failure).orElse(null); // the database or a service is away for a moment
    }
    if (refusal != null) {
      if (refusal.retryAfterSeconds() != null) {
        ctx.response().putHeader("Retry-After", Integer.toString(refusal.retryAfterSeconds()));
      }
      send(ctx, refusal.status(), refusal.message(), GraphqlErrors.code(refusal));
      return;
    }
    int status = ctx.statusCode();
    switch (status) {
      case 400 -> send(ctx, 400, "The request is not a valid GraphQL request", "BAD_REQUEST");
      case 405 -> {
        ctx.response().putHeader("Allow", "GET, POST");
        send(ctx, 405, "Use POST (or GET for queries)", "METHOD_NOT_ALLOWED");
      }
      case 413 -> send(ctx, 413, "The request body is too large", "BODY_TOO_LARGE");
      case 415 -> send(ctx, 415, "Send application/json", "UNSUPPORTED_MEDIA_TYPE");
      case 503 -> send(ctx, 503, "The request took too long", "TIMEOUT");
      default -> {
        if (status >= 400 && status < 500) {
          send(ctx, status, "The request is not valid", "BAD_REQUEST");
          return;
        }
        String traceId = UUID.randomUUID().toString();
        log.error("graphql request failed: {} {} [traceId={}]", ctx.request().method(), ctx.request().path(), traceId,
            failure);
        send(ctx, 500, ApiError.internal().message(), GraphqlErrors.INTERNAL);
      }
    }
  }

  private static void send(RoutingContext ctx, int status, String message, String code) {
    if (ctx.response().ended() || ctx.response().headWritten()) {
      return;
    }
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=utf-8")
        .putHeader("Cache-Control", "no-store")
        .end(new JsonObject(GraphqlErrors.body(message, code)).encode());
  }

  // ---- WebSocket ----

  /** A bearer token in a connection_init payload ({@code Authorization: Bearer ...}), or null. */
  static String payloadBearer(Object payload) {
    if (!(payload instanceof JsonObject json)) {
      return null;
    }
    for (String key : json.fieldNames()) {
      if ("authorization".equalsIgnoreCase(key) && json.getValue(key) instanceof String value
          && value.regionMatches(true, 0, "Bearer ", 0, 7)) {
        String token = value.substring(7).trim();
        return token.isEmpty() || token.length() > 4096 ? null : token;
      }
    }
    return null;
  }
}
