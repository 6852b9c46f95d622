package io.shotstash.publicdata.write;

import io.micrometer.core.instrument.Gauge;
import io.shotstash.app.DiskFull;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.shotstash.media.Storage;
import io.shotstash.metrics.DomainMetrics;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Transaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write mutex of the public data (ARCHITECTURE.md → The write path). Commands arrive on
 * {@code publicdata.write} and run one at a time, in arrival order:
 * rule → PostgreSQL transaction (private changes) → git commit and compare-and-set of the branch
 * → PostgreSQL commit (on failure the branch moves back) → apply to the node's state → reply →
 * publish {@code publicdata.changed}. The next command's rule sees the previous one's result.
 * JGit runs on a worker thread; the queue keeps the order.
 */
public final class GitWriterVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(GitWriterVerticle.class);
  /** Commands waiting beyond this answer 503 at once rather than wait for minutes. */
  private static final int MAX_QUEUED = 10_000;

  private final Pool pool;
  private final PublicStateHolder holder;
  private final PublicStateLoader loader;
  private final GitTreeWriter git;
  private final TomlCodec codec;
  private final Attribution attribution;
  private final Map<String, WriteHandler> handlers;
  private final String nodeId;
  private final Storage storage;
  private final Deque<Message<JsonObject>> queue = new ArrayDeque<>();
  private boolean busy;
  private Gauge queueGauge;

  /** A writer whose rules never orphan stored blobs (tests and benchmarks of the write path). */
  public GitWriterVerticle(Pool pool, PublicStateHolder holder, PublicStateLoader loader, GitTreeWriter git,
      TomlCodec codec, Attribution attribution, Map<String, WriteHandler> handlers, String nodeId) {
    this(pool, holder, loader, git, codec, attribution, handlers, nodeId, null);
  }

  public GitWriterVerticle(Pool pool, PublicStateHolder holder, PublicStateLoader loader, GitTreeWriter git,
      TomlCodec codec, Attribution attribution, Map<String, WriteHandler> handlers, String nodeId, Storage storage) {
    this.pool = pool;
    this.holder = holder;
    this.loader = loader;
    this.git = git;
    this.codec = codec;
    this.attribution = attribution;
    this.handlers = Map.copyOf(handlers);
    this.nodeId = nodeId;
    this.storage = storage;
  }

  /**
   * Catches this node's state up with the repository first (a writer that takes over from a node
   * that died may have missed its last commits), then takes commands.
   */
  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> {
      PublicState state;
      PublicState next;
      do {
        state = holder.current();
        next = loader.catchUp(state);
      } while (!holder.compareAndSet(state, next));
      return next;
    }).compose(state -> vertx.eventBus().<JsonObject>consumer(Addresses.PUBLICDATA_WRITE, this::enqueue).completion())
        .onSuccess(v -> queueGauge = DomainMetrics.writerQueue(queue::size));
  }

  @Override
  public Future<?> stop() {
    if (queueGauge != null) {
      DomainMetrics.remove(queueGauge); // the writer may start again on another node: it reports there
    }
    return Future.succeededFuture();
  }

  private void enqueue(Message<JsonObject> message) {
    if (queue.size() >= MAX_QUEUED) {
      ApiError busyError = ApiError.of(503, "busy", "Too many writes are waiting; try again shortly");
      message.fail(busyError.status(), busyError.toJson().encode());
      return;
    }
    queue.add(message);
    drain();
  }

  /** Runs the next command when none is running. Called on this verticle's event loop only. */
  private void drain() {
    if (busy || queue.isEmpty()) {
      return;
    }
    busy = true;
    Message<JsonObject> message = queue.poll();
    long deadline = PublicDataClient.deadline(message.headers());
    Future<JsonObject> outcome;
    try {
      outcome = expired(deadline) ? Future.failedFuture(expiredError())
          : run(WriteCommand.fromJson(message.body()), deadline);
    } catch (RuntimeException e) {
      outcome = Future.failedFuture(e);
    }
    outcome.onComplete(ar -> {
      if (ar.succeeded()) {
        message.reply(ar.result());
      } else {
        fail(message, ar.cause());
      }
      busy = false;
      drain();
    });
  }

  /**
   * Whether the sender has stopped waiting (see {@link PublicDataClient}): such a command is refused
   * rather than committed with nobody told, e.g. when a node that froze wakes up with old commands.
   */
  private static boolean expired(long deadline) {
    return deadline > 0 && System.currentTimeMillis() > deadline;
  }

  private static Throwable expiredError() {
    return ApiError.of(503, "write_timeout", "The data writer could not take this write in time; try again")
        .toException();
  }

  private Future<JsonObject> run(WriteCommand command, long deadline) {
    WriteHandler handler = handlers.get(command.action());
    if (handler == null) {
      return Future.failedFuture(new IllegalArgumentException("no write rule for action " + command.action()));
    }
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    PublicState before = holder.current();
    return pool.getConnection().compose(conn -> conn.begin()
        .compose(tx -> handler.plan(new WriteContext(before, conn, now), command)
            .compose(plan -> plan.privateWork().apply(conn).map(plan))
            .compose(plan -> expired(deadline) ? Future.<Committed>failedFuture(expiredError())
                : commitToGit(before, plan, command, now))
            .compose(done -> commitPrivate(tx, done, before))
            .onFailure(err -> tx.rollback()))
        .eventually(conn::close))
        .map(done -> publish(before, done));
  }

  /** What the git step produced: the plan, the new commit (null when nothing changed) and the bytes written. */
  private record Committed(WritePlan plan, ObjectId commit, List<JsonObject> events) {}

  private Future<Committed> commitToGit(PublicState before, WritePlan plan, WriteCommand command, Instant now) {
    if (plan.changes().isEmpty()) {
      return Future.succeededFuture(new Committed(plan, null, List.of()));
    }
    List<PathChange> paths = new ArrayList<>();
    List<JsonObject> events = new ArrayList<>();
    for (RecordChange c : plan.changes()) {
      byte[] bytes = c.isDelete() ? null : codec.encode(c.sheet(), c.record());
      paths.add(bytes == null ? PathChange.delete(c.path()) : PathChange.put(c.path(), bytes));
      events.add(new JsonObject().put("sheet", c.sheet().sheetName()).put("key", c.key())
          .put("content", bytes == null ? null : new String(bytes, StandardCharsets.UTF_8)));
    }
    ObjectId parent = before.commit() == null ? null : ObjectId.fromString(before.commit());
    String message = plan.message().render();
    long started = System.nanoTime();
    return vertx.executeBlocking(() -> git.commit(parent, paths, attribution.ident(command.actor(), now), message))
        .compose(result -> {
          if (result instanceof CommitResult.Committed c) {
            DomainMetrics.commit(Duration.ofNanos(System.nanoTime() - started));
            return Future.succeededFuture(new Committed(plan, c.commit(), events));
          }
          if (result instanceof CommitResult.NoChange) {
            return Future.succeededFuture(new Committed(plan, null, List.of()));
          }
          // Someone else moved the branch (a writer that still believes it holds the lock, or a
          // hand-made push). Never commit on top blindly: catch up and let the caller retry. The
          // commands already waiting arrived while this writer's view was just as stale (after a
          // freeze, their senders may have retried elsewhere): they are refused the same way.
          log.warn("the data branch moved under the writer; catching up from the repository");
          return vertx.executeBlocking(() -> loader.catchUp(before))
              .compose(caughtUp -> {
                holder.set(caughtUp);
                refuseWaiting();
                return Future.failedFuture(conflict());
              });
        });
  }

  private static Throwable conflict() {
    return ApiError.of(503, "write_conflict", "The data changed under this write; try again").toException();
  }

  /** Refuses every command still waiting (retryable). Runs on this verticle's context, like {@link #drain()}. */
  private void refuseWaiting() {
    Message<JsonObject> waiting;
    while ((waiting = queue.poll()) != null) {
      fail(waiting, conflict());
    }
  }

  private Future<Committed> commitPrivate(Transaction tx, Committed done, PublicState before) {
    return tx.commit().map(done).recover(err -> {
      if (done.commit() == null) {
        return Future.failedFuture(err);
      }
      // The private half failed after the public commit: move the branch back so neither happened.
      ObjectId parent = parentOf(before);
      // The caller hears the database's failure whatever happens here: were the move's own failure
      // (say, a full disk) answered instead, the caller would be told nothing changed.
      return vertx.executeBlocking(() -> git.moveBranch(done.commit(), parent))
          .transform(moved -> {
            if (moved.failed() || !moved.result()) {
              log.error("could not move the data branch back from {} after a failed database commit",
                  done.commit().name(), moved.cause());
            }
            return Future.failedFuture(err);
          });
    });
  }

  /** The commit the branch moved from (the state the command was checked against, not whatever the holder has now). */
  private static ObjectId parentOf(PublicState before) {
    return before.commit() == null ? ObjectId.zeroId() : ObjectId.fromString(before.commit());
  }

  private JsonObject publish(PublicState before, Committed done) {
    PublicState after = before;
    if (done.commit() != null) {
      done.plan().committed().run();
      after = before.apply(done.commit().name(), done.plan().changes());
      holder.set(after);
      vertx.eventBus().publish(Addresses.PUBLICDATA_CHANGED, new JsonObject()
          .put("node", nodeId)
          .put("parent", before.commit())
          .put("commit", done.commit().name())
          .put("changes", new JsonArray(new ArrayList<>(done.events()))));
      vertx.executeBlocking(() -> {
        git.maybeRepack();
        return null;
      }).onFailure(err -> log.warn("background repack failed", err));
    }
    for (String key : storage == null ? List.<String>of() : done.plan().orphanedBlobs()) {
      storage.delete(key).onFailure(err -> log.warn("could not delete {}; nothing refers to it any more", key, err));
    }
    JsonObject reply = done.plan().reply().apply(after);
    return reply == null ? new JsonObject() : reply;
  }

  private void fail(Message<JsonObject> message, Throwable cause) {
    ApiError error = ApiError.from(cause);
    if (error == null && DiskFull.is(cause)) {
      // Nothing changed: the git step failed before the branch moved (objects are written first,
      // the ref last, each through a temporary file) and the PostgreSQL transaction was rolled back,
      // so the next command starts from the same head and state. One line, no stack: it repeats
      // for every write until an operator frees space (operations.md -> When the disk is full).
      Throwable root = cause;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      log.warn("a write was refused: the data repository's disk is full ({})", root.toString());
      error = ApiError.storageFull();
    }
    if (error == null) {
      error = Unavailable.of(cause).orElse(null);
      if (error != null) {
        log.warn("write refused while {}: {}", error.code(), String.valueOf(cause.getMessage()));
      }
    }
    if (error == null) {
      String traceId = UUID.randomUUID().toString();
      log.error("write failed [traceId={}]", traceId, cause);
      error = ApiError.internal();
      message.fail(500, error.toJson().put("traceId", traceId).encode());
      return;
    }
    message.fail(error.status(), error.toJson().encode());
  }
}
