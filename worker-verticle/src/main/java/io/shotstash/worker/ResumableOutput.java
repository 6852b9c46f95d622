package io.shotstash.worker;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's output as a resumable (tus 1.0) upload, the contract's optional path for large outputs
 * (docs/worker-contract.md → Resumable outputs): create the upload once per claim, send the file
 * with {@code PATCH}, and after a dropped connection ask {@code HEAD} where the app stands and send
 * only the rest ({@link ResumeRule}: a few tries with a growing pause, then the caller's backing
 * off, after which the same upload is resumed). The bytes stream from the file, never held whole;
 * the tokens travel in headers only.
 */
final class ResumableOutput {
  private static final Logger log = LoggerFactory.getLogger(ResumableOutput.class);
  private static final String TUS = "1.0.0";
  private static final String CALL = "output";

  /** The upload a claim is sending to (a new claim of the same job never reuses it). */
  private record Upload(String claimToken, String url) {}

  /** What the app answered about an upload: where it stands, and the version once it is all there. */
  private record State(long offset, String versionId) {}

  private final Vertx vertx;
  private final HttpClientAgent http;
  private final String base;
  private final HttpWorkerClient client;
  private final Map<String, Upload> uploads = new ConcurrentHashMap<>();

  ResumableOutput(Vertx vertx, HttpClientAgent http, String base, HttpWorkerClient client) {
    this.vertx = vertx;
    this.http = http;
    this.base = base;
    this.client = client;
  }

  /** Sends {@code file} ({@code size} bytes) as {@code job}'s output; answers the version id. */
  Future<String> send(Job job, Path file, long size, String mimeType, String ext) {
    return attempt(job, file, size, mimeType, ext, 0)
        .onSuccess(v -> uploads.remove(job.id()))
        .onFailure(err -> {
          if (!ResumeRule.keepsUpload(WorkerCallException.from(err).status())) {
            uploads.remove(job.id()); // refused for good: a later try starts afresh (or the job is dropped)
          }
        });
  }

  /** Forgets {@code job}'s upload (the job ended or was dropped). */
  void forget(Job job) {
    uploads.remove(job.id());
  }

  /** Where to go on: the upload's URL and what the app holds of it. */
  private record Where(String url, State state) {}

  private Future<String> attempt(Job job, Path file, long size, String mimeType, String ext, int failures) {
    Upload known = uploads.get(job.id());
    Future<Where> where = known != null && known.claimToken().equals(job.claimToken())
        ? head(job, known.url()).map(state -> new Where(known.url(), state))
        : create(job, size, mimeType, ext).map(url -> new Where(url, new State(0, null)));
    return where
        .compose(w -> w.state().versionId() != null ? Future.succeededFuture(w.state().versionId())
            : patch(job, w.url(), file, w.state().offset(), size))
        .recover(err -> {
          WorkerCallException e = WorkerCallException.from(err);
          int failed = failures + 1;
          return switch (ResumeRule.after(failed, e.status(), e.code())) {
            case HAND_OVER -> Future.failedFuture(e);
            case START_OVER -> {
              log.info("Job {}: the output upload is gone on the app ({}); starting a new one", job.id(), e.code());
              uploads.remove(job.id());
              yield attempt(job, file, size, mimeType, ext, failed);
            }
            case RESUME -> {
              log.info("Job {}: the output upload was interrupted ({}); resuming in {}", job.id(), e.getMessage(),
                  WorkerLoop.seconds(ResumeRule.pause(failed)));
              yield vertx.timer(ResumeRule.pause(failed).toMillis())
                  .compose(t -> attempt(job, file, size, mimeType, ext, failed));
            }
          };
        });
  }

  /** A new upload for this claim; answers its URL. */
  private Future<String> create(Job job, long size, String mimeType, String ext) {
    String metadata = "filetype " + b64(mimeType) + ",ext " + b64(ext);
    RequestOptions options = client.streamOptions(HttpMethod.POST,
        base + HttpWorkerClient.PIPELINE + "/jobs/" + job.id() + "/output/uploads", job)
        .putHeader("Tus-Resumable", TUS).putHeader("Upload-Length", Long.toString(size))
        .putHeader("Upload-Metadata", metadata);
    return http.request(options).compose(HttpClientRequest::send)
        .recover(err -> Future.failedFuture(WorkerCallException.noAnswer(CALL, err)))
        .compose(res -> res.body().recover(err -> Future.failedFuture(WorkerCallException.noAnswer(CALL, err)))
            .compose(body -> {
              String location = res.getHeader("Location");
              if (res.statusCode() != 201 || location == null) {
                return Future.failedFuture(HttpWorkerClient.refusal(CALL, res.statusCode(), res.headers(), body));
              }
              String url = location.startsWith("http://") || location.startsWith("https://") ? location
                  : base + location;
              uploads.put(job.id(), new Upload(job.claimToken(), url));
              return Future.succeededFuture(url);
            }));
  }

  private Future<State> head(Job job, String url) {
    RequestOptions options = client.streamOptions(HttpMethod.HEAD, url, job).putHeader("Tus-Resumable", TUS);
    return http.request(options).compose(HttpClientRequest::send)
        .recover(err -> Future.failedFuture(WorkerCallException.noAnswer(CALL, err)))
        .compose(res -> res.body().recover(err -> Future.failedFuture(WorkerCallException.noAnswer(CALL, err)))
            .compose(body -> {
              if (res.statusCode() != 200) {
                return Future.failedFuture(HttpWorkerClient.refusal(CALL, res.statusCode(), res.headers(), body));
              }
              long offset = number(res.getHeader("Upload-Offset"));
              if (offset < 0) {
                return Future.failedFuture(WorkerCallException.noAnswer(CALL,
                    new IllegalStateException("the answer to HEAD has no Upload-Offset")));
              }
              return Future.succeededFuture(new State(offset, res.getHeader("Shotstash-Version-Id")));
            }));
  }

  /** The bytes of {@code file} from {@code offset} to its end, in one PATCH; answers the version id. */
  private Future<String> patch(Job job, String url, Path file, long offset, long size) {
    RequestOptions options = client.streamOptions(HttpMethod.PATCH, url, job).putHeader("Tus-Resumable", TUS)
        .putHeader("Upload-Offset", Long.toString(offset))
        .putHeader("Content-Type", "application/offset+octet-stream")
        .putHeader("Content-Length", Long.toString(size - offset));
    return vertx.fileSystem().open(file.toString(), new OpenOptions().setRead(true).setWrite(false))
        .compose(in -> {
          in.pause();
          in.setReadPos(offset);
          return http.request(options)
              .compose(req -> {
                client.transfers().put(job.id(), req);
                return req.send(in)
                    .recover(err -> Future.failedFuture(WorkerCallException.noAnswer(CALL, err)))
                    .compose(this::afterPatch)
                    // a refusal may come before the whole body went: that request cannot be
                    // finished, so its connection must not carry the next call (HttpWorkerClient's
                    // ContinuedUpload says why it is closed rather than reset)
                    .onFailure(err -> req.connection().close());
              })
              .recover(err -> Future.failedFuture(err instanceof WorkerCallException ? err
                  : WorkerCallException.noAnswer(CALL, err)))
              .eventually(() -> in.close().otherwiseEmpty())
              .onComplete(ar -> client.transfers().remove(job.id()));
        })
        .compose(state -> state.offset() == size && state.versionId() != null
            ? Future.succeededFuture(state.versionId())
            : Future.failedFuture(WorkerCallException.noAnswer(CALL, new IllegalStateException(
                "the upload stopped at " + state.offset() + " of " + size + " bytes"))));
  }

  private Future<State> afterPatch(HttpClientResponse res) {
    return res.body().recover(err -> Future.failedFuture(WorkerCallException.noAnswer(CALL, err))).compose(body -> {
      if (res.statusCode() != 204) {
        return Future.failedFuture(HttpWorkerClient.refusal(CALL, res.statusCode(), res.headers(), body));
      }
      return Future.succeededFuture(new State(number(res.getHeader("Upload-Offset")),
          res.getHeader("Shotstash-Version-Id")));
    });
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static long number(String header) {
    if (header == null) {
      return -1;
    }
    try {
      return Long.parseLong(header.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
