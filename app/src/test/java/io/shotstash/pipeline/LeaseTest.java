package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.pipeline.PipelineHarness.Claim;
import io.shotstash.pipeline.PipelineHarness.Worker;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leases, requeue and claims over real HTTP (worker contract: Heartbeats, leases and requeue).
 * Time moves by writing heartbeat_at and run_after; sweeps run through {@code pipeline.sweep}.
 */
@Timeout(120)
class LeaseTest extends WithPipelineHarness {
  /** A queued job of a kind only the given workers serve, on a file of its own. */
  static String queue(String kind) {
    String fileId = h.upload(kind.replace('/', '-') + "-" + UUID.randomUUID() + ".txt");
    return h.enqueue(fileId, kind).getString("id");
  }

  static double secondsUntilRunAfter(String jobId) {
    return h.decimal("SELECT extract(epoch FROM run_after - now()) FROM pipeline_jobs WHERE id = '" + jobId + "'");
  }

  static List<Object> row(String jobId, String columns) {
    return h.rows("SELECT " + columns + " FROM pipeline_jobs WHERE id = '" + jobId + "'").get(0);
  }

  @Test
  void anExpiredLeaseRequeuesWithBackoffAndTheThirdExpiryFailsTheJob() {
    Worker w = h.register("lease-expiry", List.of("acme/lease"));
    String job = queue("acme/lease");

    Claim first = w.claim();
    assertThat(first.jobId()).isEqualTo(job);
    assertThat(first.attempt()).isEqualTo(1);
    assertThat(first.job().getInteger("maxAttempts")).isEqualTo(3);

    h.expireLease(job);
    h.sweep();
    // queued again, the attempt spent, the claim cleared, waiting 30 s x 1
    assertThat(row(job, "status, attempts, worker_id, claim_token_hash, progress, error"))
        .containsExactly("queued", 1, null, null, 0, null);
    assertThat(secondsUntilRunAfter(job)).isBetween(25.0, 35.0);
    assertThat(w.next().statusCode()).as("not claimable before run_after").isEqualTo(204);
    assertThat(h.job(job).getString("status")).isEqualTo("queued");

    h.runNow(job);
    Claim second = h.claimSoon(w);
    assertThat(second.jobId()).isEqualTo(job);
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(second.claimToken()).isNotEqualTo(first.claimToken());

    h.expireLease(job);
    h.sweep();
    assertThat(row(job, "status, attempts")).containsExactly("queued", 2);
    assertThat(secondsUntilRunAfter(job)).as("30 s x 2 attempts").isBetween(55.0, 65.0);
    assertThat(w.next().statusCode()).isEqualTo(204);

    h.runNow(job);
    Claim third = h.claimSoon(w);
    assertThat(third.attempt()).isEqualTo(3);
    h.expireLease(job);
    h.sweep();
    assertThat(row(job, "status, attempts, error")).containsExactly("failed", 3,
        "The worker stopped sending heartbeats");
    assertThat(row(job, "finished_at IS NOT NULL").get(0)).isEqualTo(true);
    JsonObject view = h.job(job);
    assertThat(view.getString("status")).isEqualTo("failed");
    assertThat(view.getString("error")).isEqualTo("The worker stopped sending heartbeats");
    // the claim is kept on a failed job: the late holder hears JOB_TERMINAL, an older claim CLAIM_STALE
    assertThat(PipelineHarness.refusal(w.progress(third, 50), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.refusal(w.progress(second, 50), 409)).isEqualTo("CLAIM_STALE");
    h.runNow(job);
    assertThat(w.next().statusCode()).as("a failed job is never claimed again").isEqualTo(204);
  }

  @Test
  void afterARequeueTheOldClaimIsStaleAndItsOutputIsDeleted() {
    Worker a = h.register("lease-stale-a", List.of("acme/stale"));
    Worker b = h.register("lease-stale-b", List.of("acme/stale"));
    String job = queue("acme/stale");

    Claim old = a.claim();
    HttpResponse<Buffer> uploaded = a.output(old, "partial work");
    assertThat(uploaded.statusCode()).isEqualTo(200);
    Path oldOutput = h.versionFile(uploaded.bodyAsJsonObject().getString("versionId"), "txt");
    assertThat(oldOutput).exists();

    h.expireLease(job);
    h.sweep();
    assertThat(h.status(job)).isEqualTo("queued");
    assertThat(oldOutput).as("the output of the expired claim is deleted").doesNotExist();
    assertThat(row(job, "output_version_id, output_storage_key")).containsExactly(null, null);

    long storedBefore = h.storedOutputs();
    assertThat(PipelineHarness.refusal(a.progress(old, 10), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.output(old, "late output"), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.complete(old), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.release(old), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.fail(old, "late failure", true), 409)).isEqualTo("CLAIM_STALE");
    assertThat(h.storedOutputs()).as("a refused upload leaves nothing in storage").isEqualTo(storedBefore);
    assertThat(row(job, "status, attempts, error")).containsExactly("queued", 1, null);

    // another worker claims the job: the old claim stays stale, the new one works
    h.runNow(job);
    Claim fresh = h.claimSoon(b);
    assertThat(fresh.jobId()).isEqualTo(job);
    assertThat(fresh.attempt()).isEqualTo(2);
    assertThat(PipelineHarness.refusal(a.progress(old, 20), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.output(old, "late output"), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.complete(old), 409)).isEqualTo("CLAIM_STALE");
    assertThat(h.storedOutputs()).isEqualTo(storedBefore);
    // the old claim token does not work with the new holder's worker token either, nor the reverse
    assertThat(PipelineHarness.refusal(b.progress(old, 20), 409)).isEqualTo("CLAIM_STALE");
    assertThat(PipelineHarness.refusal(a.progress(fresh, 20), 409)).isEqualTo("CLAIM_STALE");

    HttpResponse<Buffer> output = b.output(fresh, "finished work");
    assertThat(output.statusCode()).isEqualTo(200);
    assertThat(b.complete(fresh).statusCode()).isEqualTo(200);
    String versionId = output.bodyAsJsonObject().getString("versionId");
    assertThat(h.rows("SELECT job_id::text, attempt FROM processed_versions WHERE id = '" + versionId + "'"))
        .containsExactly(List.of(job, 2));
    assertThat(h.versionFile(versionId, "txt")).exists();
  }

  @Test
  void anOutputStillStreamingWhenTheClaimGoesStaleIsDeleted() {
    Worker a = h.register("lease-late", List.of("acme/late"));
    String job = queue("acme/late");
    Claim claim = a.claim();
    long storedBefore = h.storedOutputs();
    Path tmp = h.app.dataDir().resolve("media").resolve("tmp");

    HttpClientAgent client = h.app.vertx().createHttpClient();
    try {
      HttpClientRequest upload = chunkedOutput(client, a.token, claim);
      upload.write(Buffer.buffer("the first half, ")).await();
      // the claim was checked and the bytes are being written to a temporary file
      h.eventually("the upload reached storage", () -> count(tmp) > 0);

      h.expireLease(job);
      h.sweep();
      assertThat(h.status(job)).isEqualTo("queued");

      // read the answer on the event loop as it arrives (a non-Vert.x thread would miss the body)
      Future<JsonObject> answer = upload.response().compose(r -> r.body()
          .map(b -> new JsonObject().put("status", r.statusCode()).put("body", b.toString())));
      upload.end(Buffer.buffer("the second half")).await();
      JsonObject response = answer.await();
      assertThat(response.getInteger("status")).as(response.encode()).isEqualTo(409);
      assertThat(new JsonObject(response.getString("body")).getString("code")).isEqualTo("CLAIM_STALE");
    } finally {
      client.close().await();
    }
    assertThat(h.storedOutputs()).as("the refused output is not kept").isEqualTo(storedBefore);
    assertThat(count(tmp)).isZero();
    assertThat(row(job, "output_version_id, output_storage_key")).containsExactly(null, null);
  }

  @Test
  void progressAndAnOutputUploadMoveTheLeaseAndTheUploadMovesItAsItStarts() {
    Worker w = h.register("lease-upload", List.of("acme/upload"));
    String job = queue("acme/upload");
    Claim claim = w.claim();
    Path tmp = h.app.dataDir().resolve("media").resolve("tmp");
    String leaseAge = "SELECT extract(epoch FROM now() - heartbeat_at) FROM pipeline_jobs WHERE id = '" + job + "'";
    String eightySecondsAgo =
        "UPDATE pipeline_jobs SET heartbeat_at = now() - interval '80 seconds' WHERE id = '" + job + "'";

    h.sql(eightySecondsAgo);
    assertThat(w.progress(claim, 1).statusCode()).isEqualTo(200);
    assertThat(h.decimal(leaseAge)).as("progress moves the lease").isLessThan(30.0);

    h.sql(eightySecondsAgo);
    HttpClientAgent client = h.app.vertx().createHttpClient();
    try {
      HttpClientRequest upload = chunkedOutput(client, w.token, claim);
      Future<Integer> status = upload.response().compose(r -> r.body().map(b -> r.statusCode()));
      upload.write(Buffer.buffer("a long upload, ")).await();
      h.eventually("the upload reached storage", () -> count(tmp) > 0);
      assertThat(h.decimal(leaseAge)).as("the lease moved as the upload started").isLessThan(30.0);

      h.sql(eightySecondsAgo);
      upload.end(Buffer.buffer("finished")).await();
      assertThat(status.await()).isEqualTo(200);
      assertThat(h.decimal(leaseAge)).as("recording the output moves the lease").isLessThan(30.0);
    } finally {
      client.close().await();
    }
    h.sweep();
    assertThat(row(job, "status, attempts")).containsExactly("running", 1);
    assertThat(w.complete(claim).statusCode()).isEqualTo(200);
  }

  static long count(Path folder) {
    if (!Files.isDirectory(folder)) {
      return 0;
    }
    try (var files = Files.list(folder)) {
      return files.count();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aHeartbeatMovesTheLeaseOfHeldJobsAndListsTheOthersAsLost() {
    Worker w = h.register("lease-beat", List.of("acme/beat"));
    String held = queue("acme/beat");
    String requeued = queue("acme/beat");
    Claim kept = w.claim();
    Claim lost = w.claim();
    assertThat(List.of(kept.jobId(), lost.jobId())).containsExactly(held, requeued);
    h.expireLease(requeued);
    h.sweep();
    assertThat(h.status(requeued)).isEqualTo("queued");

    // 60 s without a sign: still inside the 90 s lease
    h.sql("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '60 seconds' WHERE id = '" + held + "'");
    long seqBefore = h.seq(held);
    String unknown = UUID.randomUUID().toString();
    HttpResponse<Buffer> beat = w.heartbeat(List.of(held, requeued, unknown));
    assertThat(beat.statusCode()).as(beat.bodyAsString()).isEqualTo(200);
    assertThat(beat.bodyAsJsonObject().getInteger("contract")).isEqualTo(1);
    assertThat(PipelineHarness.lostJobIds(beat)).containsExactly(requeued, unknown);
    assertThat(
        h.decimal("SELECT extract(epoch FROM now() - heartbeat_at) FROM pipeline_jobs WHERE id = '" + held + "'"))
        .as("the lease moved").isLessThan(30.0);
    assertThat(h.seq(held)).as("heartbeats do not move seq").isEqualTo(seqBefore);
    assertThat(row(requeued, "status, worker_id, claim_token_hash")).containsExactly("queued", null, null);

    // 60 s later again: 120 s since the claim, but only 60 s since the heartbeat, so the sweep keeps it
    h.sql("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '60 seconds' WHERE id = '" + held + "'");
    h.sweep();
    assertThat(row(held, "status, attempts")).containsExactly("claimed", 1);
    assertThat(w.progress(kept, 5).statusCode()).isEqualTo(200);
  }

  @Test
  void releaseGivesTheAttemptBackAndTheJobIsClaimableAtOnce() {
    Worker w = h.register("lease-release", List.of("acme/release"));
    String job = queue("acme/release");
    Claim claim = w.claim();
    assertThat(row(job, "attempts").get(0)).isEqualTo(1);
    HttpResponse<Buffer> uploaded = w.output(claim, "to be dropped");
    Path output = h.versionFile(uploaded.bodyAsJsonObject().getString("versionId"), "txt");
    assertThat(output).exists();

    HttpResponse<Buffer> released = w.release(claim);
    assertThat(released.statusCode()).as(released.bodyAsString()).isEqualTo(200);
    assertThat(released.bodyAsJsonObject()).isEqualTo(new JsonObject().put("status", "queued").put("attempts", 0));
    assertThat(row(job, "status, attempts, worker_id, claim_token_hash, output_storage_key"))
        .containsExactly("queued", 0, null, null, null);
    assertThat(secondsUntilRunAfter(job)).isLessThanOrEqualTo(0.0);
    h.eventually("the released output is deleted", () -> !Files.exists(output));
    assertThat(PipelineHarness.refusal(w.progress(claim, 1), 409)).isEqualTo("CLAIM_STALE");

    Claim again = w.claim();
    assertThat(again.jobId()).isEqualTo(job);
    assertThat(again.attempt()).as("release did not spend an attempt").isEqualTo(1);
  }

  @Test
  void aRetryableFailureRequeuesWithBackoffUntilTheAttemptsAreUsed() {
    Worker w = h.register("lease-fail", List.of("acme/fail"));
    String job = queue("acme/fail");

    Claim first = w.claim();
    Path output = h.versionFile(w.output(first, "broken").bodyAsJsonObject().getString("versionId"), "txt");
    HttpResponse<Buffer> failed = w.fail(first, "The model server is not reachable", true);
    assertThat(failed.statusCode()).as(failed.bodyAsString()).isEqualTo(200);
    assertThat(failed.bodyAsJsonObject())
        .isEqualTo(new JsonObject().put("status", "queued").put("attempts", 1).put("maxAttempts", 3));
    assertThat(row(job, "status, attempts, worker_id, error, output_storage_key"))
        .containsExactly("queued", 1, null, "The model server is not reachable", null);
    assertThat(secondsUntilRunAfter(job)).isBetween(25.0, 35.0);
    h.eventually("the failed attempt's output is deleted", () -> !Files.exists(output));
    assertThat(PipelineHarness.refusal(w.progress(first, 1), 409)).isEqualTo("CLAIM_STALE");
    assertThat(w.next().statusCode()).isEqualTo(204);

    h.runNow(job);
    Claim second = h.claimSoon(w);
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(h.job(job).getString("error")).as("the last error stays readable while retried")
        .isEqualTo("The model server is not reachable");
    assertThat(w.fail(second, "still not reachable", true).bodyAsJsonObject().getString("status")).isEqualTo("queued");
    assertThat(secondsUntilRunAfter(job)).isBetween(55.0, 65.0);

    h.runNow(job);
    Claim third = h.claimSoon(w);
    assertThat(third.attempt()).isEqualTo(3);
    assertThat(w.fail(third, "gave up", true).bodyAsJsonObject())
        .isEqualTo(new JsonObject().put("status", "failed").put("attempts", 3).put("maxAttempts", 3));
    assertThat(row(job, "status, error")).containsExactly("failed", "gave up");
    assertThat(PipelineHarness.refusal(w.progress(third, 1), 409)).isEqualTo("JOB_TERMINAL");

    String other = queue("acme/fail");
    Claim once = w.claim();
    assertThat(once.jobId()).isEqualTo(other);
    assertThat(w.fail(once, "unsupported format", false).bodyAsJsonObject().getString("status")).isEqualTo("failed");
    assertThat(row(other, "status, attempts, error")).containsExactly("failed", 1, "unsupported format");
  }

  @Test
  void seqStrictlyIncreasesOverClaimProgressOutputAndComplete() {
    Worker w = h.register("lease-seq", List.of("acme/seq"));
    String job = queue("acme/seq");
    long queued = h.seq(job);

    Claim claim = w.claim();
    long claimed = h.seq(job);
    assertThat(claimed).isGreaterThan(queued);

    HttpResponse<Buffer> progress = w.progress(claim, 42);
    assertThat(progress.statusCode()).isEqualTo(200);
    JsonObject p = progress.bodyAsJsonObject();
    assertThat(p.getString("status")).isEqualTo("running");
    assertThat(p.getInteger("progress")).isEqualTo(42);
    long running = h.seq(job);
    assertThat(p.getLong("seq")).isEqualTo(running);
    assertThat(running).isEqualTo(claimed + 1);

    assertThat(w.output(claim, "result").statusCode()).isEqualTo(200);
    long withOutput = h.seq(job);
    assertThat(withOutput).isEqualTo(running + 1);

    HttpResponse<Buffer> complete = w.complete(claim);
    assertThat(complete.statusCode()).isEqualTo(200);
    JsonObject done = h.job(job);
    assertThat(done.getLong("seq")).isEqualTo(withOutput + 1);
    assertThat(done.getString("status")).isEqualTo("done");
    assertThat(done.getInteger("progress")).isEqualTo(100);
    assertThat(done.getString("versionId")).isEqualTo(complete.bodyAsJsonObject().getString("versionId"));
  }

  /** A chunked {@code PUT jobs/:id/output} of text for {@code claim}, its headers set and nothing sent yet. */
  private static HttpClientRequest chunkedOutput(HttpClientAgent client, String workerToken, Claim claim) {
    HttpClientRequest upload = client.request(new RequestOptions().setMethod(HttpMethod.PUT).setHost("127.0.0.1")
        .setPort(h.app.port()).setURI(PipelineHarness.BASE + "/jobs/" + claim.jobId() + "/output")).await();
    return upload.putHeader("X-Worker-Token", workerToken).putHeader("X-Claim-Token", claim.claimToken())
        .putHeader("Content-Type", "text/plain").putHeader("X-Output-Ext", "txt").setChunked(true);
  }
}
