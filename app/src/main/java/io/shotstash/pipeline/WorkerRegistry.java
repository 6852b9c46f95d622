package io.shotstash.pipeline;

import io.shotstash.auth.Ids;
import io.shotstash.auth.Tokens;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.Json;
import io.shotstash.pipeline.Batcher.Answered;
import io.shotstash.pipeline.Batcher.Outcome;
import io.shotstash.pipeline.WorkerDirectory.WorkerRef;
import io.shotstash.pipeline.contract.Manifest;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The workers side of the job queue: registering, authenticating a token (through this node's
 * {@link WorkerDirectory} cache), heartbeats, revoking, the list staff read, and a kind's liveness
 * flipping as its workers come and go. Statements in {@link PipelineSql}. One instance per
 * job-queue instance, used on its event loop.
 */
final class WorkerRegistry {
  private static final HexFormat HEX = HexFormat.of();

  private final Vertx vertx;
  private final Pool pool;
  private final Pool asyncCommits;
  private final WorkerDirectory workers;
  private final int leaseSeconds;
  private final int heartbeatSeconds;
  /** Concurrent heartbeats, one statement per batch; never two of one worker in a batch. */
  private final Batcher<Heartbeat, JsonObject> heartbeats =
      new Batcher<>("heartbeat", JobCalls.MAX_BATCH, Heartbeat::worker, this::heartbeatBatch);

  WorkerRegistry(Vertx vertx, Pool pool, Pool asyncCommits, WorkerDirectory workers, int leaseSeconds,
      int heartbeatSeconds) {
    this.vertx = vertx;
    this.pool = pool;
    this.asyncCommits = asyncCommits;
    this.workers = workers;
    this.leaseSeconds = leaseSeconds;
    this.heartbeatSeconds = heartbeatSeconds;
  }

  Future<JsonObject> register(JsonObject msg) {
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
                  : tx.preparedQuery(PipelineSql.ENSURE_KINDS).execute(Tuple.of((Object) kinds))
                      .map(up.iterator().next().getUUID("id")));
        }))
        .compose(id -> flipLiveness().map(id))
        .map(id -> {
          workersChanged(id.toString());
          return new JsonObject().put("workerId", id.toString()).put("token", token)
              .put("contract", Manifest.CONTRACT_MAJOR)
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
  Future<JsonObject> authenticate(JsonObject msg) {
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
          WorkerRef ref = new WorkerRef(r.getUUID("id").toString(), r.getString("name"),
              Arrays.asList(r.getArrayOfStrings("kinds")));
          workers.put(hashHex, ref, readAt);
          return Future.succeededFuture(workerJson(ref));
        });
  }

  private static JsonObject workerJson(WorkerRef w) {
    return new JsonObject().put("workerId", w.id()).put("name", w.name()).put("kinds", new JsonArray(w.kinds()));
  }

  /** One worker's heartbeat: its manifest now, the jobs it works on, and the kinds it had before. */
  record Heartbeat(UUID worker, Manifest manifest, List<String> activeJobIds, List<?> previousKinds) {
    static Heartbeat of(JsonObject msg) {
      return new Heartbeat(UUID.fromString(msg.getString("workerId")), Manifest.fromJson(msg.getJsonObject("manifest")),
          msg.getJsonArray("activeJobIds", new JsonArray()).stream().map(Object::toString).toList(),
          msg.getJsonArray("previousKinds", new JsonArray()).getList());
    }

    JsonObject row() {
      return new JsonObject().put("worker", worker.toString()).put("version", manifest.version())
          .put("kinds", new JsonArray(manifest.kinds())).put("jobs", new JsonArray(activeJobIds));
    }
  }

  /** → {contract, lostJobIds}: the listed jobs the worker no longer holds open. */
  Future<JsonObject> heartbeat(JsonObject msg) {
    Heartbeat call = Heartbeat.of(msg);
    call.activeJobIds().forEach(UUID::fromString); // a malformed id is refused before it joins a batch
    return heartbeats.submit(call);
  }

  /** Heartbeats waiting for the batch in flight (tests). */
  int heartbeatsWaiting() {
    return heartbeats.waiting();
  }

  /** Heartbeat statements sent since start (tests). */
  long heartbeatBatches() {
    return heartbeats.batches();
  }

  /** One statement for the batch (asynchronous commit: a lease move a crash forgets only shortens a lease). */
  private Future<List<Outcome<JsonObject>>> heartbeatBatch(List<Heartbeat> calls) {
    JsonArray rows = new JsonArray();
    calls.forEach(c -> rows.add(c.row()));
    return asyncCommits.preparedQuery(PipelineSql.HEARTBEAT_BATCH).execute(Tuple.of(rows))
        .compose(answered -> flipLiveness().map(answered))
        .map(answered -> JobCalls.perCall(answered, calls.size(), r -> {
          Heartbeat c = calls.get(r.getInteger("n") - 1);
          Set<String> held = new HashSet<>();
          for (UUID id : r.getArrayOfUUIDs("held")) {
            held.add(id.toString());
          }
          List<String> lost = c.activeJobIds().stream().filter(id -> !held.contains(id)).toList();
          if (!c.previousKinds().equals(c.manifest().kinds())) {
            workersChanged(c.worker().toString());
          }
          return new Answered<>(
              new JsonObject().put("contract", Manifest.CONTRACT_MAJOR).put("lostJobIds", new JsonArray(lost)));
        }));
  }

  Future<JsonObject> revoke(JsonObject msg) {
    UUID id = UUID.fromString(msg.getString("workerId"));
    return pool.preparedQuery(PipelineSql.REVOKE_WORKER).execute(Tuple.of(id))
        .compose(rows -> flipLiveness().map(rows)).map(rows -> {
          workersChanged(id.toString());
          return new JsonObject().put("revoked", rows.size() > 0);
        });
  }

  Future<JsonObject> listWorkers(JsonObject msg) {
    return pool.preparedQuery(PipelineSql.LIST_WORKERS).execute(Tuple.of(leaseSeconds)).map(rows -> {
      JsonArray list = new JsonArray();
      for (Row r : rows) {
        list.add(new JsonObject().put("id", r.getUUID("id").toString()).put("name", r.getString("name"))
            .put("version", r.getString("version"))
            .put("kinds", new JsonArray(Arrays.asList(r.getArrayOfStrings("kinds"))))
            .put("contract", r.getString("contract"))
            .put("registeredAt", Json.iso(r.getOffsetDateTime("registered_at")))
            .put("lastSeenAt", Json.iso(r.getOffsetDateTime("last_seen_at")))
            .put("revokedAt", Json.iso(r.getOffsetDateTime("revoked_at")))
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
                  List<String> ids = new ArrayList<>();
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
}
