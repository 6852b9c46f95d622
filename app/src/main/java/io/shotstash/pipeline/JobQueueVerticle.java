package io.shotstash.pipeline;

import io.shotstash.bus.ActionDispatcher;
import io.shotstash.bus.Addresses;
import io.shotstash.db.Database;
import io.shotstash.media.Storage;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The job queue (address {@code pipeline.queue}): every rule of the worker contract and of queueing
 * jobs, over PostgreSQL. HTTP workers (through the HTTP verticle) and in-process workers send the
 * same JSON messages; bodies never travel here, only the storage keys they were streamed to.
 * Statements live in {@link PipelineSql}.
 *
 * <p>The verticle keeps the pools and the dispatch; the rules live in plain classes:
 * {@link WorkerRegistry} (register, authenticate, heartbeat, revoke, the worker list),
 * {@link Claims} ({@code jobs/next}) and {@link JobCalls} (the calls about one job), which batch
 * the worker calls ({@link Batcher}: the calls that arrive while a statement is in flight go out
 * together as the next one), {@link JobQueries} (what people do and read), {@link FolderEnqueue} (a
 * kind for a whole folder) and {@link DashboardQueries} (what the jobs dashboard reads).
 *
 * <p>The node runs {@code SHOTSTASH_PIPELINE_QUEUE_INSTANCES} instances (one by default), each on an
 * event loop of its own ({@link QueueLoops}). Each serves the shared address and a node-local one
 * that the node's callers on event loops use, and owns its two pools, whose connections therefore
 * live on its loop too.
 * {@code pool} commits durably; {@code asyncCommits} does not wait for the WAL flush and carries only
 * the writes a crash of PostgreSQL may undo without harm (claims, lease moves, progress, heartbeats:
 * a forgotten claim is a queued job whose holder hears CLAIM_STALE; a forgotten lease move is at
 * worst a requeue). Outputs, completions, failures, releases and everything people do commit
 * durably; a durable commit also flushes every earlier one.
 */
public final class JobQueueVerticle extends VerticleBase {
  private final Supplier<Database.QueuePools> openPools;
  private final QueueLoops loops;
  private final Storage storage;
  private final WorkerDirectory workers;
  private final QueueSignal signal;
  private final int leaseSeconds;
  private final int heartbeatSeconds;
  // set in start, on this instance's event loop
  private Database.QueuePools pools;
  private String localAddress;
  private Claims claims;
  private JobCalls calls;

  /** {@code openPools} makes this instance's own pools (Database.queuePools); it is called in start. */
  public JobQueueVerticle(Supplier<Database.QueuePools> openPools, QueueLoops loops, Storage storage,
      WorkerDirectory workers, QueueSignal signal, int leaseSeconds, int heartbeatSeconds) {
    this.openPools = openPools;
    this.loops = loops;
    this.storage = storage;
    this.workers = workers;
    this.signal = signal;
    this.leaseSeconds = leaseSeconds;
    this.heartbeatSeconds = heartbeatSeconds;
  }

  @Override
  public Future<?> start() {
    pools = openPools.get();
    Pool pool = pools.durable();
    Pool asyncCommits = pools.asyncCommits();
    JobEvents events = new JobEvents(vertx, storage);
    claims = new Claims(asyncCommits, pool, signal, events);
    calls = new JobCalls(pool, asyncCommits, events);
    WorkerRegistry registry = new WorkerRegistry(vertx, pool, asyncCommits, workers, leaseSeconds, heartbeatSeconds);
    JobQueries queries = new JobQueries(pool, events, leaseSeconds);
    DashboardQueries dashboard = new DashboardQueries(pool, leaseSeconds);
    vertx.eventBus().<JsonObject>consumer(Addresses.PIPELINE_WORKERS_CHANGED, m -> workers.changed(m.body()));
    Thread loop = Thread.currentThread(); // start runs on this instance's event loop
    localAddress = QueueLoops.localAddress(loop);
    ActionDispatcher actions = new ActionDispatcher(Addresses.PIPELINE_QUEUE)
        .on(QueueActions.REGISTER, registry::register)
        .on(QueueActions.AUTHENTICATE, registry::authenticate)
        .on(QueueActions.HEARTBEAT, registry::heartbeat)
        .on(QueueActions.NEXT, this::next)
        .on(QueueActions.INPUT, this::input)
        .on(QueueActions.PROGRESS, this::progress)
        .on(QueueActions.BEGIN_OUTPUT, this::beginOutput)
        .on(QueueActions.RECORD_OUTPUT, this::recordOutput)
        .on(QueueActions.COMPLETE, this::complete)
        .on(QueueActions.RELEASE, this::release)
        .on(QueueActions.FAIL, this::fail)
        .on(QueueActions.ENQUEUE, queries::enqueue)
        .on(QueueActions.ENQUEUE_FOLDER, new FolderEnqueue(pool)::enqueue)
        .on(QueueActions.CANCEL, queries::cancel)
        .on(QueueActions.RETRY, queries::retry)
        .on(QueueActions.JOB, queries::job)
        .on(QueueActions.JOBS_OF_FILE, queries::jobsOfFile)
        .on(QueueActions.KINDS, queries::kinds)
        .on(QueueActions.WORKERS, registry::listWorkers)
        .on(QueueActions.REVOKE, registry::revoke)
        .on(QueueActions.STATUS, queries::status)
        .on(QueueActions.JOB_COUNTS, dashboard::counts)
        .on(QueueActions.LAST_HOUR, dashboard::lastHour)
        .on(QueueActions.JOB_LIST, dashboard::jobs);
    return Future.all(actions.register(vertx), actions.registerLocal(vertx, localAddress))
        .onSuccess(v -> loops.register(loop, localAddress));
  }

  @Override
  public Future<?> stop() {
    if (localAddress != null) {
      loops.unregister(Thread.currentThread(), localAddress);
    }
    return pools == null ? Future.succeededFuture() : pools.close();
  }

  // ---- the claim and the calls about one job (batched: Claims, JobCalls) ----

  private Future<JsonObject> next(JsonObject msg) {
    List<String> kinds = msg.getJsonArray("kinds").stream().map(Object::toString).toList();
    return claims.next(new Claims.Next(UUID.fromString(msg.getString("workerId")), kinds,
        msg.getBoolean("withStorageKey", false)));
  }

  private Future<JsonObject> input(JsonObject msg) {
    return calls.input(JobCall.of(msg));
  }

  private Future<JsonObject> progress(JsonObject msg) {
    return calls.progress(new JobCall.Progress(JobCall.of(msg), msg.getInteger("progress")));
  }

  /** An upload starts: the claim must hold; the lease moves (the upload may take long). */
  private Future<JsonObject> beginOutput(JsonObject msg) {
    return calls.beginOutput(JobCall.of(msg));
  }

  /** The output was streamed to {storageKey}; make it the claim's pending output (or delete it if refused). */
  private Future<JsonObject> recordOutput(JsonObject msg) {
    return calls.recordOutput(JobCall.Output.of(msg));
  }

  /** complete; with {versionId, storageKey, mimeType, ext, size}, the output is recorded in the same statement first. */
  private Future<JsonObject> complete(JsonObject msg) {
    return calls.complete(JobCall.Complete.of(msg));
  }

  private Future<JsonObject> release(JsonObject msg) {
    return calls.release(JobCall.of(msg));
  }

  private Future<JsonObject> fail(JsonObject msg) {
    return calls.fail(new JobCall.Fail(JobCall.of(msg), msg.getBoolean("retryable", false), msg.getString("error")));
  }
}
