package io.shotstash.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.map.IMap;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the git writer on exactly one node of the cluster at a time (ARCHITECTURE.md → Clustered
 * deployment). Every node deploys one of these; each asks for one cluster-wide lock (a Hazelcast
 * map lock, released by the cluster when its holder's node leaves or stops answering heartbeats),
 * and the node that gets it deploys {@code GitWriterVerticle}, which catches up from the
 * repository before it takes commands. The others keep asking, so one of them takes over when the
 * holder dies.
 *
 * <p><b>The lock is not a fence.</b> A node that froze and wakes up may still believe it holds it
 * while another node already writes. Writes therefore never rely on it: the branch moves only by
 * compare-and-set from the parent the writer expects, and a writer whose ref update fails catches
 * up and answers a retryable error. This verticle only keeps such overlaps short: it steps down
 * when Hazelcast starts merging this node back into the cluster (after which it asks again), and
 * when the cluster's writer record names a newer holder (a higher epoch from a cluster-wide counter
 * taken at each takeover).
 *
 * <p>The lock is always taken on one dedicated thread: Hazelcast's map locks belong to a thread, so
 * asking again on the same thread while still holding it succeeds (re-entrant) instead of waiting
 * on ourselves. It is never unlocked by hand: the cluster releases it when this node leaves.
 */
public final class WriterElectionVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(WriterElectionVerticle.class);
  static final String LOCK_MAP = "shotstash.locks";
  static final String LOCK = "git-writer";
  static final String EPOCH = "shotstash.writer-epoch";
  /** The writer record is refreshed this often and lives three times as long. */
  private static final long REFRESH_MS = 2_000;
  private static final long RECORD_TTL_MS = 3 * REFRESH_MS;
  private static final long RETRY_DEPLOY_MS = 5_000;

  private final HazelcastInstance hazelcast;
  private final String nodeName;
  private final Supplier<Deployable> writer;
  private final String id = UUID.randomUUID().toString();
  private ExecutorService elector;
  private UUID lifecycleListener;
  /** Bumped on every step-down: an acquisition started before it is stale. Written on this context only. */
  private volatile int generation;
  private boolean merging;
  private boolean stopping;
  private String deploymentId;
  private long epoch;

  public WriterElectionVerticle(HazelcastInstance hazelcast, String nodeName, Supplier<Deployable> writer) {
    this.hazelcast = hazelcast;
    this.nodeName = nodeName;
    this.writer = writer;
  }

  @Override
  public Future<?> start() {
    elector = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "shotstash-writer-election");
      t.setDaemon(true);
      return t;
    });
    lifecycleListener = hazelcast.getLifecycleService()
        .addLifecycleListener(event -> context.runOnContext(v -> onLifecycle(event.getState())));
    vertx.setPeriodic(REFRESH_MS, t -> refresh());
    contend();
    return Future.succeededFuture();
  }

  private String member() {
    return hazelcast.getCluster().getLocalMember().getUuid().toString();
  }

  /** Whether this node runs the writer now (as far as it knows). */
  public boolean isWriter() {
    return deploymentId != null;
  }

  /** Asks for the lock on the election thread until it is held, or until a step-down makes this attempt stale. */
  private void contend() {
    int attempt = generation;
    elector.execute(() -> {
      IMap<String, Object> locks = hazelcast.getMap(LOCK_MAP);
      while (attempt == generation && hazelcast.getLifecycleService().isRunning()) {
        try {
          if (locks.tryLock(LOCK, 2, TimeUnit.SECONDS)) {
            context.runOnContext(v -> onLocked(attempt));
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (RuntimeException e) {
          // a merge or a shutdown in progress: ask again in a moment
          log.debug("asking for the writer lock failed; asking again", e);
          if (!pause()) {
            return;
          }
        }
      }
    });
  }

  private static boolean pause() {
    try {
      Thread.sleep(1_000);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void onLocked(int attempt) {
    if (attempt != generation || stopping || deploymentId != null) {
      // a step-down happened meanwhile; the next attempt (same thread, re-entrant) gets it again if it is still ours
      return;
    }
    vertx.sharedData().getCounter(EPOCH).compose(c -> c.incrementAndGet()).compose(next -> {
      if (attempt != generation || stopping) {
        return Future.succeededFuture();
      }
      log.info("this node ({}) holds the writer lock (epoch {}); starting the git writer", nodeName, next);
      return vertx.deployVerticle(writer.get()).compose(deployed -> {
        if (attempt != generation || stopping) {
          return vertx.undeploy(deployed);
        }
        deploymentId = deployed;
        epoch = next;
        log.info("the git writer runs on this node ({})", nodeName);
        return WriterRecord.put(vertx, WriterRecord.record(nodeName, id, member(), epoch), RECORD_TTL_MS);
      });
    }).onFailure(err -> {
      log.error("could not start the git writer on this node; trying again in {} s", RETRY_DEPLOY_MS / 1000, err);
      vertx.setTimer(RETRY_DEPLOY_MS, t -> onLocked(attempt));
    });
  }

  /** Keeps the writer record alive, or steps down when it names a newer holder. */
  private void refresh() {
    if (deploymentId == null || stopping) {
      return;
    }
    long mine = epoch;
    WriterRecord.lookup(vertx).compose(current -> {
      if (deploymentId == null || epoch != mine) {
        return Future.succeededFuture();
      }
      if (current != null && !id.equals(current.getString("id")) && current.getLong("epoch", 0L) > mine) {
        stepDown("node " + current.getString("node") + " took the writer over (epoch " + current.getLong("epoch")
            + " > " + mine + ")", true);
        return Future.succeededFuture();
      }
      JsonObject record = WriterRecord.record(nodeName, id, member(), mine);
      if (current != null && id.equals(current.getString("id"))) {
        record.put("since", current.getString("since"));
      }
      return WriterRecord.put(vertx, record, RECORD_TTL_MS);
    }).onFailure(err -> log.debug("could not refresh the writer record", err));
  }

  private void onLifecycle(LifecycleState state) {
    switch (state) {
      case MERGING -> {
        // this node was cut off (or frozen) and Hazelcast now joins it back: whatever it held is void
        merging = true;
        stepDown("this node is being merged back into the cluster", false);
      }
      case MERGED, MERGE_FAILED -> {
        merging = false;
        if (!stopping && deploymentId == null) {
          contend();
        }
      }
      case SHUTTING_DOWN -> generation++;
      default -> {
      }
    }
  }

  /** Undeploys the writer (if running) and, unless merging, asks for the lock again. */
  private void stepDown(String reason, boolean askAgain) {
    generation++;
    if (deploymentId != null) {
      log.warn("stopping the git writer on this node ({}): {}", nodeName, reason);
      String running = deploymentId;
      deploymentId = null;
      epoch = 0;
      vertx.undeploy(running).onFailure(err -> log.warn("could not stop the git writer", err));
    }
    if (askAgain && !merging && !stopping) {
      contend();
    }
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    generation++;
    hazelcast.getLifecycleService().removeLifecycleListener(lifecycleListener);
    elector.shutdownNow();
    // the lock itself is released by the cluster when this node leaves it
    return deploymentId == null ? Future.succeededFuture()
        : WriterRecord.removeIfOwn(vertx, id).otherwise(false);
  }
}
