package io.shotstash.pipeline;

import io.shotstash.auth.Tokens;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * The calls a claim holder makes about one job, as the job queue receives them ({@code pipeline.queue}
 * messages; HTTP workers and in-process workers send the same JSON). Every call names the job, the
 * worker and the SHA-256 of its claim token: the holder every statement checks again.
 */
public record JobCall(UUID job, UUID worker, Buffer tokenHash) {

  /**
   * {workerId, jobId, claimToken} of a message, or {workerId, jobId, claimTokenHash} (hex SHA-256) from
   * the app itself: a resumable output keeps only its claim's hash, and records its output with it.
   */
  public static JobCall of(JsonObject msg) {
    String hash = msg.getString("claimTokenHash");
    return new JobCall(UUID.fromString(msg.getString("jobId")), UUID.fromString(msg.getString("workerId")),
        Buffer.buffer(hash != null ? HexFormat.of().parseHex(hash) : Tokens.sha256(msg.getString("claimToken"))));
  }

  /** A progress report (0-100). */
  public record Progress(JobCall call, int progress) {}

  /** An output stored under {@code storageKey}, to become the claim's pending output. */
  public record Output(JobCall call, UUID versionId, String storageKey, String mimeType, String ext, long size) {
    public static Output of(JsonObject msg) {
      return new Output(JobCall.of(msg), UUID.fromString(msg.getString("versionId")), msg.getString("storageKey"),
          msg.getString("mimeType"), msg.getString("ext"), msg.getLong("size"));
    }
  }

  /** complete; {@code output} (nullable) is recorded in the same statement first (an in-process worker's output). */
  public record Complete(JobCall call, Output output) {
    public static Complete of(JsonObject msg) {
      return new Complete(JobCall.of(msg), msg.getString("storageKey") == null ? null : Output.of(msg));
    }
  }

  /** fail, with the error (already cut to the contract's length) and whether it may be retried. */
  public record Fail(JobCall call, boolean retryable, String error) {}

  static UUID[] jobs(List<JobCall> calls) {
    return calls.stream().map(JobCall::job).toArray(UUID[]::new);
  }

  static UUID[] workers(List<JobCall> calls) {
    return calls.stream().map(JobCall::worker).toArray(UUID[]::new);
  }

  static Buffer[] tokens(List<JobCall> calls) {
    return calls.stream().map(JobCall::tokenHash).toArray(Buffer[]::new);
  }
}
