package io.shotstash.http;

import io.shotstash.agents.Grants;
import io.shotstash.bus.ApiError;
import io.shotstash.http.graphql.GraphqlRoutes;
import io.shotstash.http.pipeline.PipelineRoutes;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.TimeoutHandler;
import java.util.List;

/**
 * Translates HTTP into calls on this node's services and messages to the verticles that own the
 * rules. One instance per core; every instance builds the same router. Request bodies are only
 * buffered on routes that expect JSON (never on uploads).
 */
public final class HttpVerticle extends VerticleBase {
  /** JSON bodies on the community and account routes. */
  static final long JSON_BODY_LIMIT = 256 * 1024;
  /** The streamed upload route: no request timeout. */
  static final String UPLOAD_PATH = "/api/v1/files";

  private final HttpServices services;
  private HttpServer server;

  public HttpVerticle(HttpServices services) {
    this.services = services;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    BodyHandler json = BodyHandler.create(false).setBodyLimit(JSON_BODY_LIMIT);
    Grants grants = new Grants(services.pool(), services.publicState());
    Callers callers = new Callers(services.sessions(), grants,
        new SiteOrigin(services.config().site().publicOrigin(), services.config().site().trustedProxies()));

    router.route().handler(RequestTrace::begin);
    router.route().handler(ctx -> {
      ctx.response().putHeader("X-Content-Type-Options", "nosniff");
      Uploads.continueUnlessUpload(ctx);
      ctx.next();
    });
    new OpsRoutes(services).mount(router);
    // the worker contract first: its own setup gate, auth and error shape
    new PipelineRoutes(vertx, services, services.storage()).mount(router);

    TimeoutHandler timeout = TimeoutHandler.create(30_000);
    // every API call has 30 s, but an upload takes as long as its bytes take (idle timeout still applies)
    router.route("/api/*").handler(ctx -> {
      if (UPLOAD_PATH.equals(ctx.normalizedPath()) || TusRoutes.isTus(ctx.normalizedPath())) {
        ctx.next();
      } else {
        timeout.handle(ctx);
      }
    });
    router.route("/api/*").handler(this::setupGate);
    router.route("/api/*").handler(callers::resolve);
    new AuthRoutes(vertx, services, callers).mount(router, json);
    new GitHubRoutes(vertx, services, callers).mount(router);
    new PeopleRoutes(vertx, services).mount(router, json);
    new CommunityRoutes(services).mount(router, json);
    MediaRoutes media = new MediaRoutes(vertx, services, services.storage());
    media.mountApi(router);
    new TusRoutes(services.uploads(), services.config().maxUploadBytes()).mount(router);
    new StatusRoutes(vertx).mount(router);
    new AdminRoutes(vertx, services, grants).mount(router, json);
    new WebhookRoutes(services).mount(router, json);
    router.route("/api/*").handler(ctx -> Envelope.error(ctx, ApiError.notFound()));

    router.route("/media/*").handler(callers::resolve);
    media.mountDownloads(router);
    new PagesRoutes(services, callers).mount(router); // the staff screens, their assets, the site's 404 page

    new GraphqlRoutes(vertx, services).mount(router, callers);

    router.route().failureHandler(this::onFailure);

    HttpServerOptions options = new HttpServerOptions()
        .setHost(services.config().httpHost())
        .setPort(services.config().httpPort())
        .setIdleTimeout(120)
        .setWebSocketSubProtocols(List.of("graphql-transport-ws")) // GraphQL subscriptions
        // uploads answer "100 Continue" themselves, after their checks, so a refused upload is never sent
        .setHandle100ContinueAutomatically(false);
    return vertx.createHttpServer(options).requestHandler(router)
        .invalidRequestHandler(MalformedRequests::answer) // JSON like every refusal, not Vert.x's empty 400
        .listen().onSuccess(s -> server = s);
  }

  /** The port this instance listens on (the actual one when the setting was 0). */
  public int port() {
    return server == null ? -1 : server.actualPort();
  }

  /** Until a first administrator exists every API answers 503 SETUP_REQUIRED, but setup itself. */
  private void setupGate(RoutingContext ctx) {
    if (services.publicState().current().setupDone() || "/api/setup".equals(ctx.normalizedPath())) {
      ctx.next();
      return;
    }
    Envelope.error(ctx, ApiError.of(503, "SETUP_REQUIRED", "Finish first-run setup: POST /api/setup"));
  }

  private void onFailure(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    int status = ctx.statusCode();
    // vertx-web fails some requests itself with a 4xx and a cause (an HTTP/1.1 request without
    // Host): the client's mistake, answered by its status below, not a fault of ours
    boolean webRefusal = failure != null && ApiError.from(failure) == null && status >= 400 && status < 500;
    if (failure != null && !webRefusal) {
      Envelope.failure(ctx, failure);
      return;
    }
    ApiError error = switch (status) {
      case 413 -> ApiError.of(413, "body_too_large", "The request body is too large");
      case 404 -> ApiError.notFound();
      case 405 -> ApiError.of(405, "method_not_allowed", "This route does not take that method");
      case 503 -> ApiError.of(503, "timeout", "The request took too long");
      case 400, 414, 431 -> MalformedRequests.envelopeError(status, ctx.request());
      default -> status >= 400 && status < 500 ? ApiError.of(status, "bad_request", "The request is not valid")
          : ApiError.internal();
    };
    Envelope.error(ctx, error);
  }
}
