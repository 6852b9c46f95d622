package io.shotstash.pipeline;

import io.shotstash.auth.Ids;
import io.shotstash.auth.Tokens;
import io.shotstash.bus.ActionDispatcher;
import io.shotstash.bus.Addresses;
import io.shotstash.db.Database;
import io.shotstash.media.Storage;
import io.shotstash.pipeline.WorkerDirectory.WorkerRef;
import io.shotstash.pipeline.contract.JobStatus;
import io.shotstash.pipeline.contract.Kinds;
import io.shotstash.pipeline.contract.Manifest;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The job queue (address {@code pipeline.queue}): every rule of the worker contract and of queueing
 * jobs, over PostgreSQL. HTTP workers (through the HTTP verticle) and in-process workers send the
 * same JSON messages; bodies never travel here, only the storage keys they were streamed to.
 * Statements live in {@link PipelineSql}. The worker calls are batched: {@link Claims} answers
 * {@code jobs/next}, {@link JobCalls} the calls about one job; each collects the calls that arrive
 * while its statement is in flight and sends them as the next one ({@link Batcher}).
 *
 * <p>The node runs one instance on every event loop ({@link QueueLoops}). Each serves the shared
 * address and a node-local one that the callers on its own loop use, and owns its two pools, whose
 * connections therefore live on its loop too: a worker call is answered without changing threads.
 * {@code pool} commits durably; {@code asyncCommits} does not wait for the WAL flush and carries only
 * the writes a crash of PostgreSQL may undo without harm (claims, lease moves, progress, heartbeats:
 * a forgotten claim is a queued job whose holder hears CLAIM_STALE; a forgotten lease move is at
 * worst a requeue). Outputs, completions, failures, releases and everything people do commit
 * durably; a durable commit also flushes every earlier one.
 */
public final class JobQueueVerticle extends VerticleBase {
  private static final HexFormat HEX = HexFormat.of();

  private final Supplier<Database.QueuePools> openPools;
  private final QueueLoops loops;
  private final Storage storage;
  private final WorkerDirectory workers;
  private final QueueSignal signal;
  private final int leaseSeconds;
  private final int heartbeatSeconds;
  // set in start, on this instance's event loop
  private Database.QueuePools pools;
  private Pool pool;
  private Pool asyncCommits;
  private String localAddress;
  private JobEvents events;
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
    pool = pools.durable();
    asyncCommits = pools.asyncCommits();
    events = new JobEvents(vertx, storage);
    claims = new Claims(asyncCommits, pool, signal, events);
    calls = new JobCalls(pool, asyncCommits, events);
    vertx.eventBus().<JsonObject>consumer(Addresses.PIPELINE_WORKERS_CHANGED, m -> workers.changed(m.body()));
    Thread loop = Thread.currentThread(); // start runs on this instance's event loop
    localAddress = QueueLoops.localAddress(loop);
    ActionDispatcher actions = new ActionDispatcher(Addresses.PIPELINE_QUEUE)
        .on(QueueActions.REGISTER, this::register)
        .on(QueueActions.AUTHENTICATE, this::authenticate)
        .on(QueueActions.HEARTBEAT, this::heartbeat)
        .on(QueueActions.NEXT, this::next)
        .on(QueueActions.INPUT, this::input)
        .on(QueueActions.PROGRESS, this::progress)
        .on(QueueActions.BEGIN_OUTPUT, this::beginOutput)
        .on(QueueActions.RECORD_OUTPUT, this::recordOutput)
        .on(QueueActions.COMPLETE, this::complete)
        .on(QueueActions.RELEASE, this::release)
        .on(QueueActions.FAIL, this::fail)
        .on(QueueActions.ENQUEUE, this::enqueue)
        .on(QueueActions.CANCEL, this::cancel)
        .on(QueueActions.JOB, this::job)
        .on(QueueActions.JOBS_OF_FILE, this::jobsOfFile)
        .on(QueueActions.KINDS, this::kinds)
        .on(QueueActions.WORKERS, this::listWorkers)
        .on(QueueActions.REVOKE, this::revoke)
        .on(QueueActions.STATUS, this::status);
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

  // ---- workers ----

  private Future<JsonObject> register(JsonObject msg) {
    Manifest manifest = Manifest.fromJson(msg.getJsonObject("manifest"));
    String token = Tokens.random("ssw_");
    Buffer hash = Buffer.buffer(Tokens.sha256(token));
    String[] kinds = manifest.kinds().toArray(String[]::new);
    return pool.withTransaction(tx -> tx.preparedQuery(PipelineSql.WORKER_BY_NAME).execute(Tuple.of(manifest.name()))
        .compose(rows -> {
          if (rows.size() > 0 && rows.iterator().next().getValue("revoked_at") != null) {
            return Future.failedFuture(PipelineErrors.workerRevoked().toException());
          }
          UUID id = rows.size() > 0 ? rows.iterator().next().getUUID("id") : UUID.fromString(Ids.uuid7());
          return tx.preparedQuery(PipelineSql.UPSERT_WORKER)
              .execute(Tuple.of(id, manifest.name(), hash, manifest.version(), kinds, manifest.contract()))
              .compose(up -> up.size() == 0 ? Future.failedFuture(PipelineErrors.workerRevoked().toException())
                  : tx.preparedQuery(PipelineSql.ENSURE_KINDS).execute(Tuple.of((Object) kinds)).map(up.iterator().next().getUUID("id")));
        }))
        .compose(id -> flipLiveness().map(id))
        .map(id -> {
          workersChanged(id.toString());
          return new JsonObject().put("workerId", id.toString()).put("token", token).put("contract", Manifest.CONTRACT_MAJOR)
              .put("heartbeatSeconds", heartbeatSeconds).put("leaseSeconds", leaseSeconds);
        });
  }

  /**
   * A worker's token, kinds or revocation changed: this node's cache forgets it before the reply
   * (the HTTP verticles read the same cache, so the worker's next call is checked again), and every
   * other node hears it on {@code pipeline.workers.changed}.
   */
  private void workersChanged(String workerId) {
    workers.forget(workerId);
    vertx.eventBus().publish(Addresses.PIPELINE_WORKERS_CHANGED, workers.changeEvent(workerId));
  }

  /** {tokenHash (hex)} → {workerId, name, kinds}, from this node's cache when it can. */
  private Future<JsonObject> authenticate(JsonObject msg) {
    String hashHex = msg.getString("tokenHash");
    WorkerRef cached = workers.get(hashHex);
    if (cached != null) {
      return Future.succeededFuture(workerJson(cached));
    }
    long readAt = workers.generation();
    return pool.preparedQuery(PipelineSql.WORKER_BY_TOKEN).execute(Tuple.of(Buffer.buffer(HEX.parseHex(hashHex))))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.failedFuture(PipelineErrors.unauthenticated().toException());
          }
          Row r = rows.iterator().next();
          WorkerRef ref = new WorkerRef(r.getUUID("id").toString(), r.getString("name"), Arrays.asList(r.getArrayOfStrings("kinds")));
          workers.put(hashHex, ref, readAt);
          return Future.succeededFuture(workerJson(ref));
        });
  }

  private static JsonObject workerJson(WorkerRef w) {
    return new JsonObject().put("workerId", w.id()).put("name", w.name()).put("kinds", new JsonArray(w.kinds()));
  }

  private Future<JsonObject> heartbeat(JsonObject msg) {
    UUID workerId = UUID.fromString(msg.getString("workerId"));
    Manifest manifest = Manifest.fromJson(msg.getJsonObject("manifest"));
    List<String> active = msg.getJsonArray("activeJobIds", new JsonArray()).stream().map(Object::toString).toList();
    UUID[] ids = active.stream().map(UUID::fromString).toArray(UUID[]::new);
    String[] kinds = manifest.kinds().toArray(String[]::new);
    return asyncCommits.withTransaction(tx -> tx.preparedQuery(PipelineSql.HEARTBEAT_WORKER)
            .execute(Tuple.of(workerId, manifest.version(), kinds))
            .compose(r -> tx.preparedQuery(PipelineSql.ENSURE_KINDS).execute(Tuple.of((Object) kinds)))
            .compose(r -> tx.preparedQuery(PipelineSql.HEARTBEAT_JOBS).execute(Tuple.of(workerId, (Object) ids))))
        .compose(rows -> flipLiveness().map(rows))
        .map(rows -> {
          Set<String> held = new java.util.HashSet<>();
          rows.forEach(row -> held.add(row.getUUID("id").toString()));
          List<String> lost = active.stream().filter(id -> !held.contains(id)).toList();
          if (!msg.getJsonArray("previousKinds", new JsonArray()).getList().equals(manifest.kinds())) {
            workersChanged(workerId.toString());
          }
          return new JsonObject().put("contract", Manifest.CONTRACT_MAJOR).put("lostJobIds", new JsonArray(lost));
        });
  }

  private Future<JsonObject> revoke(JsonObject msg) {
    UUID id = UUID.fromString(msg.getString("workerId"));
    return pool.preparedQuery(PipelineSql.REVOKE_WORKER).execute(Tuple.of(id))
        .compose(rows -> flipLiveness().map(rows)).map(rows -> {
      workersChanged(id.toString());
      return new JsonObject().put("revoked", rows.size() > 0);
    });
  }

  private Future<JsonObject> listWorkers(JsonObject msg) {
    return pool.preparedQuery(PipelineSql.LIST_WORKERS).execute(Tuple.of(leaseSeconds)).map(rows -> {
      JsonArray list = new JsonArray();
      for (Row r : rows) {
        list.add(new JsonObject().put("id", r.getUUID("id").toString()).put("name", r.getString("name"))
            .put("version", r.getString("version")).put("kinds", new JsonArray(Arrays.asList(r.getArrayOfStrings("kinds"))))
            .put("contract", r.getString("contract")).put("registeredAt", iso(r.getOffsetDateTime("registered_at")))
            .put("lastSeenAt", iso(r.getOffsetDateTime("last_seen_at"))).put("revokedAt", iso(r.getOffsetDateTime("revoked_at")))
            .put("live", r.getBoolean("live")).put("activeJobs", r.getLong("active_jobs")));
      }
      return new JsonObject().put("workers", list);
    });
  }

  /**
   * A kind's liveness is derived, so the moment it flips (a worker for it registers, heartbeats
   * or is revoked) the queued jobs of that kind move their seq; kinds that go dead by silence are
   * caught by the sweeper. It takes the sweeper's lock without waiting: when a sweep (or another
   * flip) holds it, that one does the work, and nobody waits on anybody's row locks.
   */
  private Future<Void> flipLiveness() {
    return pool.withTransaction(tx -> tx.query(PipelineSql.TRY_SWEEP_LOCK).execute().compose(lock -> {
      if (!lock.iterator().next().getBoolean(0)) {
        return Future.succeededFuture(List.<String>of());
      }
      return tx.preparedQuery(PipelineSql.FLIP_LIVENESS).execute(Tuple.of(leaseSeconds))
        .compose(flipped -> {
          String[] kinds = new String[flipped.size()];
          int i = 0;
          for (Row r : flipped) {
            kinds[i++] = r.getString("name");
          }
          return kinds.length == 0 ? Future.succeededFuture(List.<String>of())
              : tx.preparedQuery(PipelineSql.BUMP_QUEUED_OF_KINDS).execute(Tuple.of((Object) kinds)).map(bumped -> {
                List<String> ids = new java.util.ArrayList<>();
                bumped.forEach(r -> ids.add(r.getUUID("id").toString()));
                return ids;
              });
        });
    }))
        .map(ids -> {
          ids.forEach(id -> vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED, new JsonObject().put("id", id)));
          return null;
        });
  }

  // ---- the claim and the calls about one job (batched: Claims, JobCalls) ----

  private Future<JsonObject> next(JsonObject msg) {
    List<String> kinds = msg.getJsonArray("kinds").stream().map(Object::toString).toList();
    return claims.next(new Claims.Next(UUID.fromString(msg.getString("workerId")), kinds));
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

  // ---- people ----

  /** {fileId, kind, personId} → the job (the open one for this file and kind, if any). */
  private Future<JsonObject> enqueue(JsonObject msg) {
    String kind = msg.getString("kind");
    if (!Ids.isUuid(msg.getString("fileId"))) {
      return Future.failedFuture(PipelineErrors.fileNotFound().toException());
    }
    UUID fileId = UUID.fromString(msg.getString("fileId"));
    if (!Kinds.valid(kind)) {
      return Future.failedFuture(PipelineErrors.kindUnknown(kind).toException());
    }
    return pool.preparedQuery(PipelineSql.FILE).execute(Tuple.of(fileId)).compose(files -> {
      if (files.size() == 0 || files.iterator().next().getValue("trashed_at") != null) {
        return Future.failedFuture(PipelineErrors.fileNotFound().toException());
      }
      String mime = files.iterator().next().getString("mime_type");
      return pool.preparedQuery(PipelineSql.KIND).execute(Tuple.of(kind)).compose(kinds -> {
        if (kinds.size() == 0) {
          return Future.failedFuture(PipelineErrors.kindUnknown(kind).toException());
        }
        String[] accepts = kinds.iterator().next().getArrayOfStrings("accepts");
        if (!Kinds.applies(accepts == null ? null : Arrays.asList(accepts), mime)) {
          return Future.failedFuture(PipelineErrors.kindNotApplicable(kind, mime).toException());
        }
        UUID personId = msg.getString("personId") == null ? null : UUID.fromString(msg.getString("personId"));
        return pool.preparedQuery(PipelineSql.ENQUEUE).execute(Tuple.of(UUID.fromString(Ids.uuid7()), fileId, kind, personId))
            .compose(ins -> ins.size() > 0 ? Future.succeededFuture(ins.iterator().next().getUUID("id"))
                : pool.preparedQuery(PipelineSql.OPEN_JOB_OF_FILE_KIND).execute(Tuple.of(fileId, kind))
                    .map(rows -> rows.iterator().next().getUUID("id")))
            .compose(this::jobView);
      });
    });
  }

  private Future<JsonObject> cancel(JsonObject msg) {
    if (!Ids.isUuid(msg.getString("jobId"))) {
      return Future.failedFuture(PipelineErrors.jobNotFound().toException());
    }
    UUID id = UUID.fromString(msg.getString("jobId"));
    return pool.preparedQuery(PipelineSql.CANCEL).execute(Tuple.of(id, msg.getString("error"))).compose(rows -> {
      if (rows.size() > 0) {
        Row r = rows.iterator().next();
        events.deleteOrphan(r.getString("previous"));
        events.updated(id.toString(), r.getLong("seq"), "cancelled", null);
      }
      return jobView(id);
    });
  }

  private Future<JsonObject> job(JsonObject msg) {
    if (!Ids.isUuid(msg.getString("jobId"))) {
      return Future.failedFuture(PipelineErrors.jobNotFound().toException());
    }
    return jobView(UUID.fromString(msg.getString("jobId")));
  }

  private Future<JsonObject> jobView(UUID id) {
    return pool.preparedQuery(PipelineSql.JOB_BY_ID).execute(Tuple.of(id, leaseSeconds)).compose(rows -> rows.size() == 0
        ? Future.failedFuture(PipelineErrors.jobNotFound().toException())
        : Future.succeededFuture(jobJson(rows.iterator().next())));
  }

  private Future<JsonObject> jobsOfFile(JsonObject msg) {
    UUID fileId = UUID.fromString(msg.getString("fileId"));
    return pool.preparedQuery(PipelineSql.JOBS_OF_FILE).execute(Tuple.of(fileId, leaseSeconds)).map(rows -> {
      JsonArray jobs = new JsonArray();
      rows.forEach(r -> jobs.add(jobJson(r)));
      return new JsonObject().put("jobs", jobs);
    });
  }

  static JsonObject jobJson(Row r) {
    JobStatus status = JobStatus.parse(r.getString("status"));
    UUID version = r.getUUID("version_id");
    return new JsonObject().put("id", r.getUUID("id").toString()).put("fileId", r.getUUID("file_id").toString())
        .put("kind", r.getString("kind")).put("status", status.wire()).put("state", status.state(r.getBoolean("live")))
        .put("progress", r.getInteger("progress")).put("attempts", r.getInteger("attempts"))
        .put("maxAttempts", r.getInteger("max_attempts")).put("error", r.getString("error")).put("seq", r.getLong("seq"))
        .put("versionId", version == null ? null : version.toString())
        .put("createdAt", iso(r.getOffsetDateTime("created_at"))).put("updatedAt", iso(r.getOffsetDateTime("updated_at")))
        .put("finishedAt", iso(r.getOffsetDateTime("finished_at")));
  }

  /** {fileId?} → every kind (with liveness), or those that apply to the file. */
  private Future<JsonObject> kinds(JsonObject msg) {
    String fileId = msg.getString("fileId");
    Future<String> mime = fileId == null ? Future.succeededFuture(null)
        : !Ids.isUuid(fileId) ? Future.failedFuture(PipelineErrors.fileNotFound().toException())
        : pool.preparedQuery(PipelineSql.FILE).execute(Tuple.of(UUID.fromString(fileId))).compose(rows -> rows.size() == 0
            ? Future.failedFuture(PipelineErrors.fileNotFound().toException())
            : Future.succeededFuture(rows.iterator().next().getString("mime_type")));
    return mime.compose(type -> pool.preparedQuery(PipelineSql.KINDS).execute(Tuple.of(leaseSeconds)).map(rows -> {
      JsonArray out = new JsonArray();
      for (Row r : rows) {
        String[] accepts = r.getArrayOfStrings("accepts");
        List<String> acceptList = accepts == null ? null : Arrays.asList(accepts);
        if (type == null || Kinds.applies(acceptList, type)) {
          out.add(new JsonObject().put("name", r.getString("name"))
              .put("accepts", acceptList == null ? null : new JsonArray(acceptList))
              .put("builtin", r.getBoolean("builtin")).put("live", r.getBoolean("live")));
        }
      }
      return new JsonObject().put("kinds", out);
    }));
  }

  private Future<JsonObject> status(JsonObject msg) {
    return pool.preparedQuery(PipelineSql.LIVE_WORKERS).execute(Tuple.of(leaseSeconds)).compose(live ->
        pool.query(PipelineSql.STATUS_COUNTS).execute().map(rows -> {
          JsonObject byStatus = new JsonObject();
          for (JobStatus s : JobStatus.values()) {
            byStatus.put(s.wire(), 0L);
          }
          rows.forEach(r -> byStatus.put(r.getString(0), r.getLong(1)));
          return new JsonObject().put("liveWorkers", live.iterator().next().getLong(0))
              .put("queuedJobs", byStatus.getLong("queued")).put("jobsByStatus", byStatus);
        }));
  }

  // ---- helpers ----

  static String iso(OffsetDateTime t) {
    return t == null ? null : t.toInstant().toString();
  }

}
