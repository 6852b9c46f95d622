package io.shotstash.worker;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for the app's nine worker routes: a real Vert.x HTTP server on loopback that plays the
 * contract (tokens, claims, 204 when the queue is empty) and lets a test script refusals, hold a
 * request without answering, and wait for calls. Every call is recorded with its headers and body.
 */
final class FakeApp implements AutoCloseable {
  static final String BOOTSTRAP = "fake-bootstrap-token-0123456789-abcdefghij";
  private static final Pattern JOB_CALL =
      Pattern.compile("^/api/v1/pipeline/jobs/([^/]+)/(input|progress|output|complete|release|fail)$");

  /** One request the worker made; {@code n} counts calls of its route from 1, {@code seq} all calls. */
  record Call(int seq, int n, String route, String jobId, MultiMap headers, Buffer body) {
    String header(String name) {
      return headers.get(name);
    }

    JsonObject json() {
      return body.length() == 0 ? new JsonObject() : body.toJsonObject();
    }
  }

  /** A scripted answer; {@link #HOLD} never answers. */
  record Answer(int status, Map<String, String> headers, JsonObject body) {
    static final Answer HOLD = new Answer(-1, Map.of(), null);

    static Answer refusal(int status, String code) {
      return new Answer(status, Map.of(), new JsonObject().put("code", code).put("message", "scripted " + code));
    }

    static Answer refusal(int status, String code, Map<String, String> headers) {
      return new Answer(status, headers, new JsonObject().put("code", code).put("message", "scripted " + code));
    }

    static Answer ok(JsonObject body) {
      return new Answer(200, Map.of(), body);
    }
  }

  record FakeJob(String id, String claim, Buffer input, String mimeType) {}

  private record Waiter(String route, Predicate<Call> predicate, CompletableFuture<Call> future) {}

  private final Vertx vertx;
  private HttpServer server;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<String> tokens = new CopyOnWriteArrayList<>();
  private final Map<String, FakeJob> jobs = new HashMap<>();
  private final Deque<FakeJob> queue = new ArrayDeque<>();
  private final Map<String, Deque<Answer>> scripts = new HashMap<>();
  private final Map<String, Function<Call, Answer>> overrides = new HashMap<>();
  private final List<Waiter> waiters = new ArrayList<>();
  private final Map<String, Integer> counts = new HashMap<>();
  private final List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
  volatile int heartbeatSeconds = 30;

  private FakeApp(Vertx vertx) {
    this.vertx = vertx;
  }

  static FakeApp start(Vertx vertx) {
    FakeApp app = new FakeApp(vertx);
    app.server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setHandle100ContinueAutomatically(true)).requestHandler(app::handle).listen().await();
    return app;
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  synchronized FakeJob queue(Buffer input, String mimeType) {
    FakeJob job = new FakeJob(UUID.randomUUID().toString(), "claim-" + UUID.randomUUID(), input, mimeType);
    jobs.put(job.id(), job);
    queue.add(job);
    return job;
  }

  /** Answers the next calls of {@code route} with these, in order, then the defaults again. */
  synchronized void script(String route, Answer... answers) {
    scripts.computeIfAbsent(route, r -> new ArrayDeque<>()).addAll(List.of(answers));
  }

  /** Answers every call of {@code route} with {@code f}'s answer (null: the default). */
  synchronized void always(String route, Function<Call, Answer> f) {
    overrides.put(route, f);
  }

  /** Completes with the first call of {@code route} (already made or to come) that matches. */
  synchronized CompletableFuture<Call> when(String route, Predicate<Call> predicate) {
    for (Call c : calls) {
      if (c.route().equals(route) && predicate.test(c)) {
        return CompletableFuture.completedFuture(c);
      }
    }
    CompletableFuture<Call> f = new CompletableFuture<>();
    waiters.add(new Waiter(route, predicate, f));
    return f;
  }

  List<Call> calls(String route) {
    return calls.stream().filter(c -> c.route().equals(route)).toList();
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  /** Every secret the worker saw: the bootstrap token, the worker tokens, the claims. */
  synchronized List<String> secrets() {
    List<String> all = new ArrayList<>(tokens);
    all.add(BOOTSTRAP);
    jobs.values().forEach(j -> all.add(j.claim()));
    return all;
  }

  List<String> tokens() {
    return List.copyOf(tokens);
  }

  private void handle(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      String path = req.path();
      String route;
      String jobId = null;
      Matcher m = JOB_CALL.matcher(path);
      if (path.equals("/api/v1/pipeline/workers/register")) {
        route = "register";
      } else if (path.equals("/api/v1/pipeline/workers/heartbeat")) {
        route = "heartbeat";
      } else if (path.equals("/api/v1/pipeline/jobs/next")) {
        route = "next";
      } else if (m.matches()) {
        route = m.group(2);
        jobId = m.group(1);
      } else {
        req.response().setStatusCode(404).end();
        return;
      }
      Call call;
      Answer answer;
      List<CompletableFuture<Call>> ready = new ArrayList<>();
      synchronized (this) {
        int n = counts.merge(route, 1, Integer::sum);
        call =
            new Call(calls.size() + 1, n, route, jobId, MultiMap.caseInsensitiveMultiMap().addAll(req.headers()), body);
        calls.add(call);
        Deque<Answer> scripted = scripts.get(route);
        answer = scripted != null && !scripted.isEmpty() ? scripted.poll() : null;
        if (answer == null && overrides.containsKey(route)) {
          answer = overrides.get(route).apply(call);
        }
        if (answer == null) {
          answer = defaultAnswer(call);
        }
        waiters.removeIf(w -> {
          if (w.route().equals(route) && w.predicate().test(call)) {
            ready.add(w.future());
            return true;
          }
          return false;
        });
      }
      respond(req, call, answer);
      ready.forEach(f -> f.complete(call));
    });
  }

  private void respond(HttpServerRequest req, Call call, Answer answer) {
    if (answer == Answer.HOLD) {
      held.add(req);
      return;
    }
    req.response().putHeader("X-Shotstash-Pipeline", "1");
    answer.headers().forEach(req.response()::putHeader);
    if (answer.status() == 200 && call.route().equals("input") && answer.body() == null) {
      FakeJob job = jobs.get(call.jobId());
      req.response().putHeader("Content-Type", job.mimeType()).end(job.input());
      return;
    }
    req.response().setStatusCode(answer.status());
    if (answer.body() == null) {
      req.response().end();
    } else {
      req.response().putHeader("Content-Type", "application/json").end(answer.body().encode());
    }
  }

  /** The contract's behaviour: bootstrap and worker tokens, claims, the queue. */
  private Answer defaultAnswer(Call call) {
    if (call.route().equals("register")) {
      if (!BOOTSTRAP.equals(call.header("X-Worker-Bootstrap-Token"))) {
        return Answer.refusal(401, "UNAUTHENTICATED");
      }
      String token = "ssw_fake_" + UUID.randomUUID();
      tokens.add(token);
      return new Answer(201, Map.of(), new JsonObject().put("workerId", "0192-fake-worker").put("token", token)
          .put("contract", 1).put("heartbeatSeconds", heartbeatSeconds).put("leaseSeconds", 90));
    }
    if (tokens.isEmpty() || !tokens.get(tokens.size() - 1).equals(call.header("X-Worker-Token"))) {
      return Answer.refusal(401, "UNAUTHENTICATED");
    }
    switch (call.route()) {
      case "heartbeat" :
        return Answer.ok(new JsonObject().put("contract", 1).put("lostJobIds", new JsonArray()));
      case "next" : {
        FakeJob job = queue.poll();
        if (job == null) {
          return new Answer(204, Map.of(), null);
        }
        return Answer.ok(new JsonObject().put("job", new JsonObject().put("id", job.id()).put("kind", WorkerLoop.KIND)
            .put("params", new JsonObject()).put("attempt", 1).put("maxAttempts", 3).put("claimToken", job.claim())
            .put("input",
                new JsonObject().put("url", "/api/v1/pipeline/jobs/" + job.id() + "/input").put("name", "in.mp4")
                    .put("mimeType", job.mimeType()).put("size", job.input().length()))));
      }
      default :
        break;
    }
    FakeJob job = jobs.get(call.jobId());
    if (job == null) {
      return Answer.refusal(404, "JOB_NOT_FOUND");
    }
    if (!job.claim().equals(call.header("X-Claim-Token"))) {
      return Answer.refusal(409, "CLAIM_STALE");
    }
    return switch (call.route()) {
      case "input" -> new Answer(200, Map.of(), null);
      case "progress" ->
        Answer.ok(new JsonObject().put("status", "running").put("progress", call.json().getInteger("progress"))
            .put("seq", call.n()));
      case "output" ->
        Answer.ok(new JsonObject().put("versionId", "version-" + call.n()).put("size", call.body().length())
            .put("mimeType", call.header("Content-Type")));
      case "complete" -> Answer.ok(new JsonObject().put("status", "done").put("versionId", "version-final"));
      case "release" -> Answer.ok(new JsonObject().put("status", "queued").put("attempts", 0));
      case "fail" -> Answer.ok(new JsonObject().put("status", call.json().getBoolean("retryable") ? "queued" : "failed")
          .put("attempts", 1).put("maxAttempts", 3));
      default -> Answer.refusal(404, "NOT_FOUND");
    };
  }

  @Override
  public void close() {
    held.forEach(r -> r.connection().close());
    server.close().await();
  }

  Vertx vertx() {
    return vertx;
  }
}
