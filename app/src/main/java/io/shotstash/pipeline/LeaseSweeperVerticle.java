package io.shotstash.pipeline;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.SweepVerticle;
import io.shotstash.media.LocalStorage;
import io.shotstash.metrics.DomainMetrics;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code SHOTSTASH_PIPELINE_SWEEP_SECONDS}: requeue or fail expired claims, cancel open jobs
 * of trashed files, remove long-unseen workers, move {@code seq} of queued jobs whose kind's
 * liveness flipped, and delete outputs no job owns. Runs on every node; a PostgreSQL advisory lock
 * makes one sweep at a time, and every statement is conditional, so a sweep that overlaps another
 * node's does no harm. {@code pipeline.sweep} runs one now.
 */
public final class LeaseSweeperVerticle extends SweepVerticle {
  private static final Logger log = LoggerFactory.getLogger(LeaseSweeperVerticle.class);
  /** An output file younger than this may be an upload that has not been recorded yet. */
  private static final Duration ORPHAN_GRACE = Duration.ofHours(1);

  private final Pool pool;
  private final LocalStorage storage;
  private final int leaseSeconds;

  public LeaseSweeperVerticle(Pool pool, LocalStorage storage, int leaseSeconds, int sweepSeconds) {
    super(Addresses.PIPELINE_SWEEP, sweepSeconds);
    this.pool = pool;
    this.storage = storage;
    this.leaseSeconds = leaseSeconds;
  }

  /** One sweep; {@code {orphans: true}} also deletes orphan outputs regardless of age (tests). */
  @Override
  public Future<JsonObject> sweep(JsonObject options) {
    List<String> deletable = new ArrayList<>();
    JsonObject report = new JsonObject();
    return pool.withTransaction(tx -> tx.query(PipelineSql.TRY_SWEEP_LOCK).execute().compose(lock -> {
      if (!lock.iterator().next().getBoolean(0)) {
        return Future.succeededFuture(report.put("skipped", true));
      }
      return expire(tx, report, deletable)
          .compose(v -> cancelTrashed(tx, report, deletable))
          .compose(
              v -> tx.query(PipelineSql.PRUNE_WORKERS).execute().map(r -> report.put("workersRemoved", r.rowCount())))
          .compose(v -> flipLiveness(tx, report))
          .map(report);
    }))
        .compose(r -> Future.all(deletable.stream().map(k -> storage.delete(k).otherwiseEmpty()).toList()).map(r))
        .compose(r -> r.getBoolean("skipped", false) ? Future.succeededFuture(r)
            : deleteOrphans(options.getBoolean("orphans", false)).map(n -> r.put("orphansDeleted", n)));
  }

  private Future<Void> expire(SqlConnection tx, JsonObject report, List<String> deletable) {
    return tx.preparedQuery(PipelineSql.EXPIRE_LEASES).execute(Tuple.of(leaseSeconds)).map(rows -> {
      JsonArray requeued = new JsonArray();
      JsonArray failed = new JsonArray();
      for (Row r : rows) {
        String id = r.getUUID("id").toString();
        boolean again = "queued".equals(r.getString("status"));
        (again ? requeued : failed).add(id);
        DomainMetrics.sweeperExpired(r.getString("kind"), again);
        if (r.getString("previous") != null) {
          deletable.add(r.getString("previous"));
        }
        vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED, new JsonObject().put("id", id));
      }
      report.put("requeued", requeued).put("failed", failed);
      return null;
    });
  }

  private Future<Void> cancelTrashed(SqlConnection tx, JsonObject report, List<String> deletable) {
    return tx.query(PipelineSql.CANCEL_TRASHED).execute().map(rows -> {
      JsonArray cancelled = new JsonArray();
      for (Row r : rows) {
        cancelled.add(r.getUUID("id").toString());
        if (r.getString("previous") != null) {
          deletable.add(r.getString("previous"));
        }
        vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED,
            new JsonObject().put("id", r.getUUID("id").toString()));
      }
      report.put("cancelled", cancelled);
      return null;
    });
  }

  private Future<Void> flipLiveness(SqlConnection tx, JsonObject report) {
    return tx.preparedQuery(PipelineSql.FLIP_LIVENESS).execute(Tuple.of(leaseSeconds)).compose(rows -> {
      List<String> flipped = new ArrayList<>();
      rows.forEach(r -> flipped.add(r.getString("name")));
      report.put("kindsFlipped", new JsonArray(flipped));
      if (flipped.isEmpty()) {
        return Future.succeededFuture();
      }
      return tx.preparedQuery(PipelineSql.BUMP_QUEUED_OF_KINDS)
          .execute(Tuple.of((Object) flipped.toArray(String[]::new)))
          .map(bumped -> {
            bumped.forEach(r -> vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED,
                new JsonObject().put("id", r.getUUID("id").toString())));
            return null;
          });
    });
  }

  /** Deletes files under versions/ that neither a version nor a pending output owns. */
  private Future<Integer> deleteOrphans(boolean ignoreAge) {
    return pool.query(PipelineSql.OWNED_VERSION_KEYS).execute().compose(rows -> {
      Set<String> owned = new HashSet<>();
      rows.forEach(r -> owned.add(r.getString(0)));
      return vertx.executeBlocking(() -> {
        Instant cutoff = Instant.now().minus(ORPHAN_GRACE);
        int deleted = 0;
        try (Stream<Path> files = Files.list(storage.versionsFolder())) {
          for (Path p : (Iterable<Path>) files::iterator) {
            String key = "versions/" + p.getFileName();
            if (!owned.contains(key) && (ignoreAge || Files.getLastModifiedTime(p).toInstant().isBefore(cutoff))) {
              Files.deleteIfExists(p);
              deleted++;
            }
          }
        } catch (IOException e) {
          log.warn("could not list stored outputs", e);
        }
        return deleted;
      });
    });
  }
}
