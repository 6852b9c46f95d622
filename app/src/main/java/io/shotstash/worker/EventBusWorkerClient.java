package io.shotstash.worker;

import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.media.Storage;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.QueueLoops;
import io.shotstash.pipeline.contract.Manifest;
import io.shotstash.pipeline.contract.OutputRules;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The worker contract inside the app: the same requests the HTTP routes send to
 * {@code pipeline.queue}, without HTTP. No token: registering ({@link QueueActions#REGISTER}) answers
 * the worker id, which every later message carries, as the HTTP layer does after it checked a
 * token. Bodies never travel on the event bus: the input is read where {@link Storage} keeps it
 * (the claim itself names the key, asked with {@code withStorageKey}, so the read right after a claim
 * needs no {@link QueueActions#INPUT}: the claim was just checked by taking it; a later read asks),
 * and the output is written with
 * {@link Storage#write} once {@link QueueActions#BEGIN_OUTPUT} confirmed the claim, then recorded
 * with {@link QueueActions#RECORD_OUTPUT}. A small output (one the HTTP route too writes before it
 * checks the claim, {@link OutputRules#claimCheckedFirst}) is recorded by the
 * {@link QueueActions#COMPLETE} that follows it, in the same statement: one call less per job. Until
 * then nobody owns its bytes, so a release or fail deletes them, and a refused complete has the
 * queue delete them.
 */
public final class EventBusWorkerClient implements WorkerClient {
  private final Vertx vertx;
  private final QueueLoops queue;
  private final Storage storage;
  private final long maxOutputBytes;
  private String workerId;
  /** Small outputs stored and not yet recorded, by job id: their complete records them. */
  private final Map<String, JsonObject> unrecorded = new ConcurrentHashMap<>();
  /** Input keys the claims named, by job id, until the first read of each (or the job's end). */
  private final Map<String, String> claimedInputs = new ConcurrentHashMap<>();
  private List<String> kinds = List.of();

  /** {@code queue}: the node's job-queue instances; each call asks the one on the caller's event loop. */
  public EventBusWorkerClient(Vertx vertx, QueueLoops queue, Storage storage, long maxOutputBytes) {
    this.vertx = vertx;
    this.queue = queue;
    this.storage = storage;
    this.maxOutputBytes = maxOutputBytes;
  }

  private Future<JsonObject> ask(String call, String action, JsonObject body) {
    return Requests.ask(vertx, queue.address(), action, body).recover(err -> Future.failedFuture(translate(call, err)));
  }

  private static WorkerCallException translate(String call, Throwable err) {
    if (err instanceof WorkerCallException w) {
      return w;
    }
    ApiError e = ApiError.from(err);
    return e == null ? WorkerCallException.noAnswer(call, err)
        : WorkerCallException.refused(call, e.status(), e.code(), e.message(), e.retryAfterSeconds());
  }

  /** Runs the contract's own check (it throws the contract's refusal) as a future. */
  private static <T> Future<T> checked(String call, java.util.concurrent.Callable<T> check) {
    try {
      return Future.succeededFuture(check.call());
    } catch (Exception e) {
      return Future.failedFuture(translate(call, e));
    }
  }

  @Override
  public Future<Registration> register(WorkerManifest manifest) {
    return checked("register", () -> Manifest.parse(WireFormat.manifest(manifest)))
        .compose(
            m -> ask("register", QueueActions.REGISTER, new JsonObject().put("manifest", m.toJson())).map(reply -> {
              Registration r = WireFormat.registration(reply);
              workerId = r.workerId();
              kinds = m.kinds();
              return r; // the reply's token is not needed here and is dropped
            }));
  }

  private Future<JsonObject> worker(String call) {
    if (workerId == null) {
      return Future.failedFuture(WorkerCallException.refused(call, 401, "UNAUTHENTICATED", "not registered yet", null));
    }
    return Future.succeededFuture(new JsonObject().put("workerId", workerId));
  }

  private Future<JsonObject> claim(String call, Job job) {
    return worker(call).map(w -> w.put("jobId", job.id()).put("claimToken", job.claimToken()));
  }

  @Override
  public Future<List<String>> heartbeat(WorkerManifest manifest, List<String> activeJobIds) {
    return worker("heartbeat").compose(w -> checked("heartbeat", () -> Manifest.parse(WireFormat.manifest(manifest)))
        .compose(m -> ask("heartbeat", QueueActions.HEARTBEAT, w.put("manifest", m.toJson())
            .put("activeJobIds", new JsonArray(activeJobIds)).put("previousKinds", new JsonArray(kinds)))))
        .map(WireFormat::lostJobIds);
  }

  @Override
  public Future<Job> next() {
    return worker("jobs/next")
        .compose(
            w -> ask("jobs/next", QueueActions.NEXT, w.put("kinds", new JsonArray(kinds)).put("withStorageKey", true)))
        .map(reply -> {
          Job job = WireFormat.job(reply);
          if (job != null && reply.getString("storageKey") != null) {
            claimedInputs.put(job.id(), reply.getString("storageKey"));
          }
          return job;
        });
  }

  @Override
  public Future<Path> downloadInput(Job job, Path target) {
    String claimed = claimedInputs.remove(job.id());
    Future<String> key = claimed != null ? Future.succeededFuture(claimed)
        : claim("input", job).compose(c -> ask("input", QueueActions.INPUT, c))
            .map(file -> file.getString("storageKey"));
    return key.compose(k -> checked("input", () -> storage.path(k)));
  }

  @Override
  public Future<Void> progress(Job job, int percent) {
    return claim("progress", job).compose(c -> ask("progress", QueueActions.PROGRESS, c.put("progress", percent)))
        .mapEmpty();
  }

  @Override
  public Future<String> uploadOutput(Job job, Path file, String mimeType, String ext) {
    String type = OutputRules.mediaType(mimeType);
    String extension = OutputRules.extension(ext);
    if (type == null || extension == null) {
      return Future
          .failedFuture(translate("output", PipelineErrors.invalidOutput("bad media type or extension").toException()));
    }
    String versionId = Ids.uuid7();
    String key = Storage.versionKey(versionId, extension);
    // As the HTTP route does: check the claim (and move the lease) before writing the bytes, unless
    // the output is small (OutputRules.claimCheckedFirst): then recording it checks the claim.
    boolean[] small = new boolean[1];
    return claim("output", job).compose(c -> vertx.fileSystem().props(file.toString()).compose(props -> {
      small[0] = !OutputRules.claimCheckedFirst(props.size(), false);
      Future<?> ready = small[0] ? Future.succeededFuture() : ask("output", QueueActions.BEGIN_OUTPUT, c);
      return ready
          .compose(ok -> vertx.fileSystem().open(file.toString(), new OpenOptions().setRead(true).setWrite(false)))
          .compose(in -> {
            in.pause();
            return storage.write(key, in, maxOutputBytes, props.size())
                .recover(err -> Future.failedFuture(err instanceof Storage.TooLargeException
                    ? translate("output", PipelineErrors.outputTooLarge(maxOutputBytes).toException())
                    : WorkerCallException.noAnswer("output", err)))
                .eventually(() -> in.close().otherwiseEmpty());
          });
    })
        .compose(written -> written.size() == 0
            ? storage.delete(key).otherwiseEmpty().compose(v -> Future.failedFuture(
                translate("output", PipelineErrors.invalidOutput("The output is empty").toException())))
            : record(job, small[0], new JsonObject().put("versionId", versionId).put("storageKey", key)
                .put("mimeType", type).put("ext", extension).put("size", written.size()), c)))
        .map(WireFormat::versionId);
  }

  /** Records the output now, or (a small one) leaves it to the complete; replaces any earlier unrecorded one. */
  private Future<JsonObject> record(Job job, boolean small, JsonObject output, JsonObject claim) {
    return dropUnrecorded(job).compose(v -> {
      if (small) {
        unrecorded.put(job.id(), output);
        return Future.succeededFuture(output);
      }
      return ask("output", QueueActions.RECORD_OUTPUT, claim.copy().mergeIn(output));
    });
  }

  /** Deletes the bytes of an output stored for this job and never recorded (nobody else knows of them). */
  private Future<Void> dropUnrecorded(Job job) {
    claimedInputs.remove(job.id());
    JsonObject earlier = unrecorded.remove(job.id());
    return earlier == null ? Future.succeededFuture()
        : storage.delete(earlier.getString("storageKey")).otherwiseEmpty();
  }

  @Override
  public Future<String> complete(Job job) {
    return claim("complete", job).compose(c -> {
      claimedInputs.remove(job.id());
      JsonObject output = unrecorded.remove(job.id());
      return ask("complete", QueueActions.COMPLETE, output == null ? c : c.mergeIn(output));
    }).map(WireFormat::versionId);
  }

  @Override
  public Future<Void> release(Job job) {
    return claim("release", job).compose(c -> dropUnrecorded(job).compose(v -> ask("release", QueueActions.RELEASE, c)))
        .mapEmpty();
  }

  @Override
  public Future<Void> fail(Job job, String error, boolean retryable) {
    String cut = error.length() > 2000 ? error.substring(0, 2000) : error;
    return claim("fail", job).compose(c -> dropUnrecorded(job)
        .compose(v -> ask("fail", QueueActions.FAIL, c.put("error", cut).put("retryable", retryable))))
        .mapEmpty();
  }
}
