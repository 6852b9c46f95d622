package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.PipelineHarness.Claim;
import io.shotstash.pipeline.PipelineHarness.Worker;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The derived state waiting_for_worker: a queued job whose kind no live worker (not revoked, seen
 * within the lease) serves. The sweeper moves seq of queued jobs when their kind's liveness flips.
 */
@Timeout(120)
class WaitingForWorkerTest extends WithPipelineHarness {
  static String state(String jobId) {
    return h.job(jobId).getString("state");
  }

  static void notSeenFor10Minutes(Worker w) {
    h.sql("UPDATE pipeline_workers SET last_seen_at = now() - interval '10 minutes' WHERE id = '" + w.id + "'");
  }

  @Test
  void aBuiltInKindWaitsUntilAWorkerServesItAndAgainWhenTheWorkerIsGone() {
    String video = h.upload("clip.mp4", "video/mp4", "not really a video");
    JsonObject queued = h.enqueue(video, "shotstash/proxy-720p");
    String job = queued.getString("id");
    assertThat(queued.getString("status")).isEqualTo("queued");
    assertThat(queued.getString("state")).isEqualTo("waiting_for_worker");
    h.sweep();
    long waiting = h.seq(job);
    assertThat(state(job)).isEqualTo("waiting_for_worker");

    Worker w = h.register("proxy-maker", List.of("shotstash/proxy-720p"));
    assertThat(state(job)).as("a live worker serves the kind").isEqualTo("queued");
    h.sweep();
    assertThat(kindLive("shotstash/proxy-720p")).isTrue();
    long live = h.seq(job);
    assertThat(live).as("the flip to live moves seq").isGreaterThan(waiting);
    assertThat(h.job(job).getString("status")).isEqualTo("queued");
    // a sweep without a flip leaves seq alone
    h.sweep();
    assertThat(h.seq(job)).isEqualTo(live);

    notSeenFor10Minutes(w);
    assertThat(state(job)).isEqualTo("waiting_for_worker");
    h.sweep();
    assertThat(state(job)).isEqualTo("waiting_for_worker");
    long gone = h.seq(job);
    assertThat(gone).as("the flip to waiting moves seq").isGreaterThan(live);
    assertThat(h.job(job).getString("status")).isEqualTo("queued");
    assertThat(kindLive("shotstash/proxy-720p")).isFalse();

    // a heartbeat brings the worker back
    assertThat(w.heartbeat(List.of()).statusCode()).isEqualTo(200);
    assertThat(state(job)).isEqualTo("queued");
    h.sweep();
    assertThat(h.seq(job)).isGreaterThan(gone);
    Claim claim = w.claim();
    assertThat(claim.jobId()).isEqualTo(job);
    assertThat(state(job)).isEqualTo("claimed");
  }

  @Test
  void theLivenessFlipMovesSeqEvenWithoutASweepWhileTheWorkerWasLive() {
    Worker creator = h.register("flip-creator", List.of("acme/flip"));
    notSeenFor10Minutes(creator);
    String job = h.enqueue(h.upload("flip.txt"), "acme/flip").getString("id");
    h.sweep();
    long waiting = h.seq(job);
    assertThat(state(job)).isEqualTo("waiting_for_worker");

    Worker w = h.register("flip-worker", List.of("acme/flip"));
    assertThat(state(job)).isEqualTo("queued");
    long queued = h.seq(job);

    notSeenFor10Minutes(w);
    h.sweep();
    assertThat(state(job)).isEqualTo("waiting_for_worker");
    assertThat(h.seq(job)).as("the state a client read in between has a seq of its own")
        .isGreaterThan(Math.max(waiting, queued));
  }

  @Test
  void aRevokedWorkerNoLongerServesItsKinds() {
    Worker w = h.register("revoked-one", List.of("acme/revoked"));
    String job = h.enqueue(h.upload("revoked.txt"), "acme/revoked").getString("id");
    assertThat(state(job)).isEqualTo("queued");
    Requests.ask(h.app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.REVOKE, new JsonObject().put("workerId", w.id))
        .await();
    assertThat(state(job)).isEqualTo("waiting_for_worker");
    assertThat(w.next().statusCode()).as("a revoked token answers 401").isEqualTo(401);
  }

  @Test
  void aKindAddedByAHeartbeatIsServedAtOnce() {
    Worker other = h.register("kind-creator", List.of("acme/later"));
    notSeenFor10Minutes(other);
    String job = h.enqueue(h.upload("later.txt"), "acme/later").getString("id");
    assertThat(state(job)).isEqualTo("waiting_for_worker");

    Worker w = h.register("kind-learner", List.of("acme/first"));
    assertThat(w.next().statusCode()).isEqualTo(204);
    Worker grown = new Worker(w.id, w.name, w.token, List.of("acme/first", "acme/later"), w.http);
    HttpResponse<Buffer> beat = grown.heartbeat(List.of());
    assertThat(beat.statusCode()).isEqualTo(200);
    assertThat(state(job)).isEqualTo("queued");
    HttpResponse<Buffer> next = grown.next();
    assertThat(next.statusCode()).as("jobs/next uses the kinds of the latest manifest").isEqualTo(200);
    assertThat(Worker.claimOf(next).jobId()).isEqualTo(job);
  }

  static boolean kindLive(String kind) {
    JsonObject kinds =
        Requests.ask(h.app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.KINDS, new JsonObject()).await();
    return kinds.getJsonArray("kinds").stream().map(JsonObject.class::cast)
        .filter(k -> kind.equals(k.getString("name"))).findFirst().orElseThrow().getBoolean("live");
  }
}
