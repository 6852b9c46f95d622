package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.config.LogFormat;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Every request's trace id, the one its error envelope shows and its log lines carry (as the
 * key-value pair {@code traceId}), and its access log line when {@code SHOTSTASH_ACCESS_LOG=true}:
 * method, the path with the route's parameters named (never a slug, an id or a query string),
 * status, duration and the kind of caller. docs/operations.md → Logs.
 */
public final class RequestTrace {
  private static final String KEY = "traceId";
  private static final Logger ACCESS = LoggerFactory.getLogger(LogFormat.ACCESS_LOGGER);

  private RequestTrace() {}

  /** The first handler of every request: with the access log on, times it and logs its line at the end. */
  static void begin(RoutingContext ctx) {
    if (ACCESS.isInfoEnabled()) {
      long started = System.nanoTime();
      ctx.addEndHandler(done -> access(ctx, started));
    }
    ctx.next();
  }

  /**
   * This request's trace id, made the first time something asks (an error answer, a log line), so a
   * request that needs none costs none; a new one for a request the router never saw.
   */
  public static String id(RoutingContext ctx) {
    if (ctx == null) {
      return UUID.randomUUID().toString();
    }
    String id = ctx.get(KEY);
    if (id == null) {
      id = UUID.randomUUID().toString();
      ctx.put(KEY, id);
    }
    return id;
  }

  /**
   * A log line about this request: its trace id, its route, the kind of caller and, on a job's
   * route, the job's id, as key-value pairs (JSON logs carry them in {@code kvpList}).
   */
  public static LoggingEventBuilder about(LoggingEventBuilder line, RoutingContext ctx) {
    line.addKeyValue("traceId", id(ctx)).addKeyValue("route", pattern(ctx.normalizedPath(), ctx.pathParams()))
        .addKeyValue("actor", callerKind(Callers.actor(ctx)));
    String job = ctx.pathParam("id");
    if (job != null && ctx.normalizedPath().contains("/jobs/")) {
      line.addKeyValue("jobId", job);
    }
    return line;
  }

  private static void access(RoutingContext ctx, long started) {
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    String method = ctx.request().method().name();
    int status = ctx.response().getStatusCode();
    about(ACCESS.atInfo(), ctx).addKeyValue("method", method).addKeyValue("status", status)
        .addKeyValue("durationMs", millis)
        .log("{} {} {} {} ms", method, pattern(ctx.normalizedPath(), ctx.pathParams()), status, millis);
  }

  /**
   * The path with the parameters of the route that answered put back as their names
   * ({@code /api/people/:slug}), so a line never carries a slug, an id or a token; no query string.
   */
  static String pattern(String path, Map<String, String> params) {
    if (params.isEmpty()) {
      return path;
    }
    String[] segments = path.split("/", -1);
    boolean[] named = new boolean[segments.length];
    for (Map.Entry<String, String> p : params.entrySet()) {
      // from the right: parameters follow the fixed part (/api/people/people names only the last)
      for (int i = segments.length - 1; i >= 0; i--) {
        if (!named[i] && !segments[i].isEmpty() && segments[i].equals(p.getValue())) {
          segments[i] = ":" + p.getKey();
          named[i] = true;
          break;
        }
      }
    }
    return String.join("/", segments);
  }

  /** anonymous, member, agent or system: a bounded set, never who. */
  static String callerKind(Actor actor) {
    if (actor instanceof Actor.Member) {
      return "member";
    }
    if (actor instanceof Actor.Agent) {
      return "agent";
    }
    return actor instanceof Actor.SystemActor ? "system" : "anonymous";
  }
}
