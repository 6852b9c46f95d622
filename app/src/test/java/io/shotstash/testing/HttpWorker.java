package io.shotstash.testing;

import io.shotstash.testing.ClusterNodes.Node;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A worker of the contract over HTTP, for the cluster tests and benchmarks: registered once, it may
 * call any node of a {@link ClusterNodes}, always from its own loopback address (so that many
 * workers do not share the per-IP limit). Calls answer futures, so many workers run at once on one
 * Vert.x instance.
 */
public final class HttpWorker {
  private static final String PIPELINE = "/api/v1/pipeline";

  /** A claim answered by jobs/next. */
  public record Claim(String jobId, String claimToken) {}

  private final Vertx vertx;
  private final String name;
  private final String localAddress;
  private final Map<Integer, WebClient> clients = new ConcurrentHashMap<>();
  private String token;

  private HttpWorker(Vertx vertx, String name, String localAddress) {
    this.vertx = vertx;
    this.name = name;
    this.localAddress = localAddress;
  }

  /** Registers {@code name} for {@code kind} through {@code node}; fails when registration is refused. */
  public static HttpWorker register(Vertx vertx, Node node, String localAddress, String name, String kind) {
    HttpWorker w = new HttpWorker(vertx, name, localAddress);
    HttpResponse<Buffer> r = w.client(node).post(PIPELINE + "/workers/register")
        .putHeader("X-Worker-Bootstrap-Token", ClusterNodes.BOOTSTRAP)
        .sendJsonObject(new JsonObject().put("manifest", new JsonObject().put("name", name).put("version", "1.0.0")
            .put("kinds", new JsonArray().add(kind)).put("contract", 1)))
        .await();
    if (r.statusCode() != 201) {
      throw new IllegalStateException("register " + name + ": " + r.statusCode() + " " + r.bodyAsString());
    }
    w.token = r.bodyAsJsonObject().getString("token");
    return w;
  }

  public String name() {
    return name;
  }

  private WebClient client(Node node) {
    return clients.computeIfAbsent(node.index, i -> WebClient.create(vertx, new WebClientOptions()
        .setDefaultHost("127.0.0.1").setDefaultPort(node.httpPort).setLocalAddress(localAddress)));
  }

  public Future<HttpResponse<Buffer>> next(Node node) {
    return client(node).post(PIPELINE + "/jobs/next").putHeader("X-Worker-Token", token).timeout(30_000).send();
  }

  /** jobs/next that must claim a job. */
  public Claim claim(Node node) {
    HttpResponse<Buffer> r = next(node).await();
    if (r.statusCode() != 200) {
      throw new IllegalStateException("jobs/next of " + name + ": " + r.statusCode() + " " + r.bodyAsString());
    }
    JsonObject job = r.bodyAsJsonObject().getJsonObject("job");
    return new Claim(job.getString("id"), job.getString("claimToken"));
  }

  public Future<HttpResponse<Buffer>> progress(Node node, Claim claim, int percent) {
    return client(node).post(PIPELINE + "/jobs/" + claim.jobId() + "/progress").putHeader("X-Worker-Token", token)
        .putHeader("X-Claim-Token", claim.claimToken()).sendJsonObject(new JsonObject().put("progress", percent));
  }

  /**
   * Claims, uploads a small output for and completes jobs through {@code node} until {@code total}
   * jobs are done (by all the workers sharing {@code completed}); fails on any other answer or
   * when {@code deadline} (System.nanoTime) passes. {@code claimed} hears every job id claimed.
   */
  public Future<Void> drain(Node node, long deadline, Consumer<String> claimed, AtomicInteger completed, int total) {
    Promise<Void> done = Promise.promise();
    vertx.runOnContext(v -> cycle(node, deadline, claimed, completed, total, done));
    return done.future();
  }

  private void cycle(Node node, long deadline, Consumer<String> claimed, AtomicInteger completed, int total,
      Promise<Void> done) {
    if (System.nanoTime() > deadline) {
      done.fail(new AssertionError(name + " ran out of time"));
      return;
    }
    next(node).compose(r -> {
      if (r.statusCode() == 204) {
        return Future.succeededFuture(false);
      }
      if (r.statusCode() != 200) {
        return Future
            .failedFuture(new AssertionError("jobs/next of " + name + ": " + r.statusCode() + " " + r.bodyAsString()));
      }
      JsonObject job = r.bodyAsJsonObject().getJsonObject("job");
      Claim claim = new Claim(job.getString("id"), job.getString("claimToken"));
      claimed.accept(claim.jobId());
      return client(node).put(PIPELINE + "/jobs/" + claim.jobId() + "/output").putHeader("X-Worker-Token", token)
          .putHeader("X-Claim-Token", claim.claimToken()).putHeader("Content-Type", "text/plain")
          .putHeader("X-Output-Ext", "txt").sendBuffer(Buffer.buffer("done " + claim.jobId()))
          .compose(out -> out.statusCode() == 200 ? client(node).post(PIPELINE + "/jobs/" + claim.jobId() + "/complete")
              .putHeader("X-Worker-Token", token).putHeader("X-Claim-Token", claim.claimToken()).send()
              : Future.failedFuture(
                  new AssertionError("output of " + name + ": " + out.statusCode() + " " + out.bodyAsString())))
          .compose(c -> c.statusCode() == 200 ? Future.succeededFuture(true)
              : Future.failedFuture(
                  new AssertionError("complete of " + name + ": " + c.statusCode() + " " + c.bodyAsString())));
    }).onComplete(ar -> {
      if (ar.failed()) {
        done.fail(ar.cause());
      } else if (ar.result()) {
        completed.incrementAndGet();
        cycle(node, deadline, claimed, completed, total, done);
      } else if (completed.get() >= total) {
        done.complete(); // nothing left for anyone
      } else {
        vertx.setTimer(100, t -> cycle(node, deadline, claimed, completed, total, done));
      }
    });
  }
}
