package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.media.LibraryVerticle;
import io.shotstash.pipeline.PipelineHarness.Claim;
import io.shotstash.pipeline.PipelineHarness.Worker;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A person cancels a job, a file goes to the Trash (through the library, or behind its back in SQL
 * for the sweeper's safety net): the holder hears JOB_TERMINAL or FILE_GONE and its output is deleted.
 */
@Timeout(120)
class CancelAndTrashTest extends WithPipelineHarness {
  static List<Object> row(String jobId, String columns) {
    return h.rows("SELECT " + columns + " FROM pipeline_jobs WHERE id = '" + jobId + "'").get(0);
  }

  static Path outputOf(HttpResponse<Buffer> upload) {
    assertThat(upload.statusCode()).as(upload.bodyAsString()).isEqualTo(200);
    return h.versionFile(upload.bodyAsJsonObject().getString("versionId"), "txt");
  }

  @Test
  void cancellingAClaimedJobStopsItsHolder() {
    Worker w = h.register("cancel-holder", List.of("acme/cancel"));
    String file = h.upload("cancel.txt");
    String job = h.enqueue(file, "acme/cancel").getString("id");
    Claim claim = w.claim();
    assertThat(w.progress(claim, 10).statusCode()).isEqualTo(200);
    Path output = outputOf(w.output(claim, "half done"));
    long seqBefore = h.seq(job);

    JsonObject cancelled = h.cancel(job);
    assertThat(cancelled.getString("status")).isEqualTo("cancelled");
    assertThat(cancelled.getString("state")).isEqualTo("cancelled");
    assertThat(cancelled.getLong("seq")).isEqualTo(seqBefore + 1);
    assertThat(cancelled.getString("finishedAt")).isNotNull();
    h.eventually("the output of the cancelled job is deleted", () -> !Files.exists(output));
    assertThat(row(job, "output_storage_key")).containsOnlyNulls();

    assertThat(PipelineHarness.refusal(w.progress(claim, 20), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.refusal(w.output(claim, "more"), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.refusal(w.complete(claim), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.refusal(w.fail(claim, "gave up", true), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.refusal(w.release(claim), 409)).isEqualTo("JOB_TERMINAL");
    HttpResponse<Buffer> beat = w.heartbeat(List.of(job));
    assertThat(beat.statusCode()).isEqualTo(200);
    assertThat(PipelineHarness.lostJobIds(beat)).containsExactly(job);
    assertThat(w.next().statusCode()).isEqualTo(204);

    // cancelling again changes nothing; a new job of the kind may be queued on the file
    JsonObject again = h.cancel(job);
    assertThat(again.getString("status")).isEqualTo("cancelled");
    assertThat(again.getLong("seq")).isEqualTo(cancelled.getLong("seq"));
    assertThat(h.enqueue(file, "acme/cancel").getString("id")).isNotEqualTo(job);
    assertThat(h.number("SELECT count(*) FROM processed_versions WHERE job_id = '" + job + "'")).isZero();
  }

  @Test
  void cancellingAQueuedJobMeansNobodyClaimsIt() {
    Worker w = h.register("cancel-queued", List.of("acme/cancel-queued"));
    String job = h.enqueue(h.upload("queued.txt"), "acme/cancel-queued").getString("id");
    assertThat(h.cancel(job).getString("status")).isEqualTo("cancelled");
    assertThat(w.next().statusCode()).isEqualTo(204);
    assertThat(row(job, "status, attempts")).containsExactly("cancelled", 0);
  }

  @Test
  void trashingTheFileOfAClaimedJobAnswersFileGoneOnComplete() {
    Worker w = h.register("trash-holder", List.of("acme/trash"));
    String file = h.upload("trash.txt");
    String job = h.enqueue(file, "acme/trash").getString("id");
    Claim claim = w.claim();
    Path output = outputOf(w.output(claim, "finished before the trash"));
    assertThat(output).exists();

    h.trash(file);
    assertThat(row(job, "status, error")).containsExactly("cancelled", "file trashed");
    JsonObject view = h.job(job);
    assertThat(view.getString("status")).isEqualTo("cancelled");
    assertThat(view.getString("error")).isEqualTo("file trashed");
    h.eventually("the output of the trashed file's job is deleted", () -> !Files.exists(output));

    assertThat(PipelineHarness.refusal(w.complete(claim), 409)).isEqualTo("FILE_GONE");
    assertThat(PipelineHarness.refusal(w.progress(claim, 99), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.lostJobIds(w.heartbeat(List.of(job)))).containsExactly(job);
    assertThat(h.number("SELECT count(*) FROM processed_versions WHERE file_id = '" + file + "'")).isZero();
    assertThat(output).doesNotExist();
  }

  @Test
  void queueingOnATrashedOrUnknownFileAnswersFileNotFound() {
    h.register("trash-enqueue", List.of("acme/trash-enqueue"));
    String file = h.upload("gone.txt");
    h.trash(file);
    ApiError trashed = PipelineHarness.refused(h.enqueueAsync(file, "acme/trash-enqueue"));
    assertThat(trashed.status()).isEqualTo(404);
    assertThat(trashed.code()).isEqualTo("FILE_NOT_FOUND");
    ApiError unknown = PipelineHarness.refused(h.enqueueAsync(UUID.randomUUID().toString(), "acme/trash-enqueue"));
    assertThat(unknown.code()).isEqualTo("FILE_NOT_FOUND");
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs WHERE file_id = '" + file + "'")).isZero();
  }

  @Test
  void theSweeperCancelsOpenJobsOfAFileTrashedInSql() {
    h.register("trash-sql-idle", List.of("acme/sql-queued"));
    Worker w = h.register("trash-sql-holder", List.of("acme/sql-claimed"));
    String file = h.upload("trashed-in-sql.txt");
    String queued = h.enqueue(file, "acme/sql-queued").getString("id");
    String claimed = h.enqueue(file, "acme/sql-claimed").getString("id");
    Claim claim = w.claim();
    assertThat(claim.jobId()).isEqualTo(claimed);
    Path output = outputOf(w.output(claim, "made before the trash"));

    h.sql("UPDATE media_files SET trashed_at = now() WHERE id = '" + file + "'");
    // before any sweep the claim still stands, but the file is gone for its holder
    HttpResponse<Buffer> input = w.http.get(PipelineHarness.BASE + "/jobs/" + claimed + "/input")
        .putHeader("X-Worker-Token", w.token).putHeader("X-Claim-Token", claim.claimToken()).send().await();
    assertThat(PipelineHarness.refusal(input, 404)).isEqualTo("FILE_NOT_FOUND");

    h.sweep();
    for (String job : List.of(queued, claimed)) {
      assertThat(row(job, "status, error, finished_at IS NOT NULL")).as(job).containsExactly("cancelled",
          "file trashed", true);
      assertThat(h.job(job).getString("state")).isEqualTo("cancelled");
    }
    assertThat(output).as("the sweeper deletes the cancelled job's output").doesNotExist();
    assertThat(row(claimed, "output_storage_key")).containsOnlyNulls();
    assertThat(PipelineHarness.refusal(w.complete(claim), 409)).isEqualTo("FILE_GONE");
    assertThat(PipelineHarness.refusal(w.progress(claim, 50), 409)).isEqualTo("JOB_TERMINAL");
    assertThat(PipelineHarness.lostJobIds(w.heartbeat(List.of(claimed)))).containsExactly(claimed);
    assertThat(h.number("SELECT count(*) FROM processed_versions WHERE file_id = '" + file + "'")).isZero();

    // a second sweep finds nothing more to cancel
    assertThat(h.sweep().getJsonArray("cancelled")).isEmpty();
  }

  @Test
  void completeAfterTheFileWasTrashedInSqlForgetsThePendingOutput() {
    Worker w = h.register("trash-sql-complete", List.of("acme/sql-complete"));
    String file = h.upload("trashed-then-restored.txt");
    String job = h.enqueue(file, "acme/sql-complete").getString("id");
    Claim claim = w.claim();
    HttpResponse<Buffer> uploaded = w.output(claim, "made before the trash");
    Path output = outputOf(uploaded);
    long seqBefore = h.seq(job);

    h.sql("UPDATE media_files SET trashed_at = now() WHERE id = '" + file + "'");
    assertThat(PipelineHarness.refusal(w.complete(claim), 409)).isEqualTo("FILE_GONE");
    h.eventually("the output of the refused completion is deleted", () -> !Files.exists(output));
    // the job forgets the output it no longer has (DROP_OUTPUT), in the same state otherwise
    assertThat(row(job, "status, output_storage_key, output_version_id")).containsExactly("claimed", null, null);
    assertThat(h.seq(job)).isEqualTo(seqBefore + 1);

    // restored before any sweep: completing again must not create a version without bytes
    Requests.ask(h.app.vertx(), Addresses.MEDIA_LIBRARY, LibraryVerticle.Actions.RESTORE_FILE,
        new JsonObject().put("id", file)).await();
    assertThat(PipelineHarness.refusal(w.complete(claim), 409)).isEqualTo("OUTPUT_MISSING");
    assertThat(h.number("SELECT count(*) FROM processed_versions WHERE file_id = '" + file + "'")).isZero();
  }
}
