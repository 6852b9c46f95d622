package io.shotstash.testing;

import io.shotstash.testing.ClusterNodes.Node;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Moderation votes one after another by one staff member through one node, each carrying a new
 * marker ({@code mark-<32 hex>}) as its reasoning, which the commit message repeats: so each attempt
 * can be found in git (or not) afterwards. Runs on a Vert.x timer loop until {@code maxVotes} or the
 * deadline; each request may take up to 70 s (longer than the app's own wait for the writer).
 */
public final class VoteStream {
  /** One attempt: its marker, when it started and ended (System.nanoTime), the HTTP status (-1: no answer), the error code. */
  public record Attempt(String marker, String node, long startNanos, long endNanos, int status, String code) {
    public boolean accepted() {
      return status == 200;
    }

    /** No answer, or an answer that says the outcome is not known (the write may or may not have been made). */
    public boolean unknown() {
      return status < 0 || status == 503 && ("write_timeout".equals(code) || "writer_lost".equals(code));
    }
  }

  private final Vertx vertx;
  private final Node node;
  private final String token;
  private final List<String> members;
  private final long pacingMillis;
  private final int maxVotes;
  private final long stopAt;
  private final List<Attempt> attempts = new ArrayList<>();

  public VoteStream(Vertx vertx, Node node, String token, List<String> members, long pacingMillis, int maxVotes,
      Duration within) {
    this.vertx = vertx;
    this.node = node;
    this.token = token;
    this.members = List.copyOf(members);
    this.pacingMillis = pacingMillis;
    this.maxVotes = maxVotes;
    this.stopAt = System.nanoTime() + within.toNanos();
  }

  /** Starts the stream; completes with every attempt once it ends. */
  public Future<List<Attempt>> run() {
    Promise<List<Attempt>> done = Promise.promise();
    vertx.runOnContext(v -> next(done));
    return done.future();
  }

  private void next(Promise<List<Attempt>> done) {
    if (attempts.size() >= maxVotes || System.nanoTime() > stopAt) {
      done.complete(attempts);
      return;
    }
    String marker = "mark-" + UUID.randomUUID().toString().replace("-", "");
    String member = members.get(attempts.size() % members.size());
    long start = System.nanoTime();
    node.http.post("/api/admin/members/" + member + "/vote").bearerTokenAuthentication(token).timeout(70_000)
        .sendJsonObject(
            new JsonObject().put("verdict", attempts.size() % 2 == 0 ? "spam" : "legit").put("reasoning", marker))
        .onComplete(ar -> {
          int status = ar.succeeded() ? ar.result().statusCode() : -1;
          String code = null;
          if (ar.succeeded() && status != 200) {
            try {
              code = ar.result().bodyAsJsonObject().getJsonObject("error").getString("code");
            } catch (RuntimeException e) {
              code = "?";
            }
          }
          attempts.add(new Attempt(marker, node.name(), start, System.nanoTime(), status, code));
          if (pacingMillis > 0) {
            vertx.setTimer(pacingMillis, t -> next(done));
          } else {
            next(done);
          }
        });
  }

  /** Runs the streams together; every attempt of all of them. */
  public static List<Attempt> runAll(List<VoteStream> streams) {
    return collect(streams.stream().map(VoteStream::run).toList());
  }

  /** Waits for streams already started; every attempt of all of them. */
  public static List<Attempt> collect(List<Future<List<Attempt>>> running) {
    List<Attempt> all = new ArrayList<>();
    for (Future<List<Attempt>> f : running) {
      all.addAll(f.await());
    }
    return all;
  }
}
