package io.shotstash.pipeline;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Tokens;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.media.Storage;
import io.shotstash.media.uploads.NewUpload;
import io.shotstash.media.uploads.UploadRow;
import io.shotstash.media.uploads.UploadTarget;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A resumable upload that becomes a worker's output for a job it holds the claim of, exactly as
 * {@code PUT jobs/:id/output} records one: its bytes under {@link Storage#versionKey} (the version id
 * is the upload's result id, fixed at creation) and the claim's pending output through {@code
 * pipeline.queue}, so {@code complete} and the processed version work unchanged
 * (docs/worker-contract.md → Resumable outputs).
 *
 * <p>The claim is checked at every request (creation, HEAD, each PATCH before and after its bytes,
 * DELETE) with the output upload's own check ({@code output.begin}, which also moves the lease). An
 * upload belongs to the claim it was created under: once that claim is over (the job requeued,
 * released, cancelled or finished), the upload is {@link UploadTarget.Ended}: its partial bytes and
 * row go, and the worker hears the contract's 409 ({@code CLAIM_STALE}, {@code JOB_TERMINAL}).
 * Another worker's upload, or one of another job, is 404 as if it did not exist.
 */
public record JobOutputTarget(Vertx vertx, Pool pool, Storage storage) implements UploadTarget {
  public static final String NAME = "job-output";
  /** The header the claim token travels in (never a URL). */
  public static final String CLAIM_HEADER = "X-Claim-Token";
  /** The refusals that mean the claim is over: the upload ends with them. */
  private static final Set<String> CLAIM_OVER = Set.of("CLAIM_STALE", "JOB_TERMINAL", "JOB_NOT_FOUND", "FILE_GONE");

  /** The extension an output upload keeps in its file name ({@code output.<ext>}, see {@link #fileName}). */
  static String extension(UploadRow upload) {
    String name = upload.fileName();
    return name.substring(name.lastIndexOf('.') + 1);
  }

  /** The name an output upload is created with: the extension is the part that counts. */
  public static String fileName(String ext) {
    return "output." + ext;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The claim holds (and the lease moves), as before a plain output upload's bytes are read. */
  @Override
  public Future<Void> admitNew(Actor caller, UnaryOperator<String> header, NewUpload request) {
    Actor.Worker worker = (Actor.Worker) caller;
    return claimHolds(worker.workerId(), worker.jobId(), header.apply(CLAIM_HEADER));
  }

  @Override
  public Future<Void> created(SqlConnection tx, UploadRow upload, Actor caller, UnaryOperator<String> header) {
    Actor.Worker worker = (Actor.Worker) caller;
    return tx.preparedQuery(OutputUploadSql.INSERT).execute(Tuple.of(UUID.fromString(upload.id()),
        UUID.fromString(worker.jobId()), Buffer.buffer(Tokens.sha256(header.apply(CLAIM_HEADER))))).mapEmpty();
  }

  /**
   * Its worker and its job, else 404; then the claim it was created under. When the request's claim
   * token is that claim, the job's answer decides: a claim that is over ends the upload. When it is
   * another token, the upload's claim is over only if the request's token holds the job now (a
   * claim taken after it); otherwise the request is refused and the upload kept, since a wrong
   * token says nothing about the upload's own claim.
   */
  @Override
  public Future<Void> admit(Actor caller, UnaryOperator<String> header, UploadRow upload) {
    if (!(caller instanceof Actor.Worker worker) || !worker.workerId().equals(upload.ownerId())) {
      return Future.failedFuture(ApiError.notFound().toException());
    }
    String token = header.apply(CLAIM_HEADER);
    return claimOf(upload).compose(claim -> {
      if (claim == null || !claim.jobId().equals(worker.jobId())) {
        return Future.failedFuture(ApiError.notFound().toException());
      }
      boolean sameClaim = MessageDigest.isEqual(Tokens.sha256(token), claim.tokenHash());
      Future<Void> holds = claimHolds(worker.workerId(), worker.jobId(), token);
      if (sameClaim) {
        return holds.recover(err -> Future.failedFuture(ended(err)));
      }
      return holds.compose(v -> Future.failedFuture(new Ended(PipelineErrors.claimStale())));
    });
  }

  /**
   * The part renamed to the version's key, then recorded as the claim's pending output with the
   * claim's hash (the request's token is not needed, so a HEAD after a crash can finish it too).
   * Recording it again after a crash records the same version and key. A refused record deletes the
   * bytes (as for a plain upload) and ends the upload.
   */
  @Override
  public Future<String> finish(UploadRow upload, Path bytes) {
    String versionId = upload.resultId();
    String key = Storage.versionKey(versionId, extension(upload));
    return claimOf(upload).compose(claim -> claim == null
        ? Future.failedFuture(new Ended(PipelineErrors.jobNotFound()))
        : storage.adopt(bytes, key).compose(adopted -> UploadTarget.whole(upload, adopted)).compose(written -> {
          JsonObject call = new JsonObject().put("workerId", upload.ownerId()).put("jobId", claim.jobId())
              .put("claimTokenHash", HexFormat.of().formatHex(claim.tokenHash())).put("versionId", versionId)
              .put("storageKey", key).put("mimeType", upload.mimeType()).put("ext", extension(upload))
              .put("size", written.size());
          return Requests.ask(vertx, Addresses.PIPELINE_QUEUE, QueueActions.RECORD_OUTPUT, call)
              .recover(err -> Future.failedFuture(ended(err)))
              .map(versionId);
        }));
  }

  /** Uploads whose claim is over, though nobody asked about them again (the worker dropped the job). */
  @Override
  public Future<List<String>> over(int limit) {
    return pool.preparedQuery(OutputUploadSql.OVER).execute(Tuple.of(limit)).map(rows -> {
      List<String> ids = new ArrayList<>();
      rows.forEach(r -> ids.add(r.getUUID("upload_id").toString()));
      return ids;
    });
  }

  private record Claim(String jobId, byte[] tokenHash) {}

  private Future<Claim> claimOf(UploadRow upload) {
    return pool.preparedQuery(OutputUploadSql.OF_UPLOAD).execute(Tuple.of(UUID.fromString(upload.id())))
        .map(rows -> rows.size() == 0 ? null : rows.iterator().next())
        .map(r -> r == null ? null
            : new Claim(r.getUUID("job_id").toString(), r.getBuffer("claim_token_hash").getBytes()));
  }

  private Future<Void> claimHolds(String workerId, String jobId, String claimToken) {
    return Requests.ask(vertx, Addresses.PIPELINE_QUEUE, QueueActions.BEGIN_OUTPUT,
        new JsonObject().put("workerId", workerId).put("jobId", jobId).put("claimToken", claimToken)).mapEmpty();
  }

  /** A refusal that says the claim is over ends the upload; anything else (an outage) stays what it is. */
  private static Throwable ended(Throwable err) {
    ApiError e = ApiError.from(err);
    return e != null && CLAIM_OVER.contains(e.code()) ? new Ended(e) : err;
  }
}
