package io.shotstash.publicdata.write;

import io.micrometer.core.instrument.Gauge;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.media.Storage;
import io.shotstash.metrics.DomainMetrics;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write mutex of the public data (ARCHITECTURE.md → The write path). Commands arrive on
 * {@code publicdata.write} and run one at a time, in arrival order: PostgreSQL transaction with the
 * branch fence's row lock ({@link BranchFence}) → rule → private changes → the commit's git objects
 * → the fence row set to the new commit → PostgreSQL commit → the branch moved → apply to the
 * node's state → reply → publish {@code publicdata.changed}. The next command's rule sees the
 * previous one's result. JGit runs on a worker thread; the queue keeps the order. Between commands,
 * every {@value #FENCE_CHECK_MS} ms, the writer checks the branch against the fence and puts it right.
 */
public final class GitWriterVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(GitWriterVerticle.class);
  /** Commands waiting beyond this answer 503 at once rather than wait for minutes. */
  private static final int MAX_QUEUED = 10_000;
  /** How often an idle writer compares the branch with the fence (a hand push is taken in that soon). */
  static final long FENCE_CHECK_MS = 5_000;

  private final Pool pool;
  private final PublicStateHolder holder;
  private final PublicStateLoader loader;
  private final GitTreeWriter git;
  private final TomlCodec codec;
  private final Attribution attribution;
  private final Map<String, WriteHandler> handlers;
  private final String nodeId;
  private final Storage storage;
  private final String branch;
  private Duration fenceIdleTimeout = BranchFence.DEFAULT_IDLE_TIMEOUT;
  private BranchFence fence;
  /** Set when the branch was seen off the fence during a write: the next turn checks it first. */
  private boolean fenceCheckDue;
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
    this.branch = git.branch();
  }

  /** How long PostgreSQL lets a write's transaction idle before it ends it (tests shorten it). */
  public GitWriterVerticle fenceIdleTimeout(Duration timeout) {
    this.fenceIdleTimeout = timeout;
    return this;
  }

  /**
   * Ends the transactions of any other writer (one frozen in a write, on a node taken for dead),
   * puts the branch and the fence in step and catches this node's state up to the fence first (a
   * writer that takes over from a node that died may have missed its last commits), then takes
   * commands.
   */
  @Override
  public Future<?> start() {
    fence = new BranchFence(vertx, git, branch, fenceIdleTimeout);
    vertx.setPeriodic(FENCE_CHECK_MS, FENCE_CHECK_MS, id -> {
      if (!busy && queue.isEmpty()) {
        fenceCheckDue = true;
        drain();
      }
    });
    return BranchFence.takeOver(pool).compose(ended -> checkFence())
        .recover(err -> {
          if (!(err instanceof BranchFence.Broken)) {
            return Future.failedFuture(err);
          }
          log.error("the data writer takes commands, but every write fails until an operator decides: {}",
              err.getMessage());
          return Future.succeededFuture(holder.current());
        })
        .compose(state -> vertx.eventBus().<JsonObject>consumer(Addresses.PUBLICDATA_WRITE, this::enqueue).completion())
        .onSuccess(v -> queueGauge = DomainMetrics.writerQueue(queue::size));
  }

  /**
   * One transaction holding the fence's row: the branch is put back at the row, or the row takes a
   * commit pushed by hand on top of it; then this node's state catches up to the row.
   */
  private Future<PublicState> checkFence() {
    return pool.withTransaction(conn -> fence.lock(conn).compose(row -> fence.putInStep(conn, row)))
        .compose(head -> vertx.executeBlocking(() -> {
          PublicState state;
          PublicState next;
          do {
            state = holder.current();
            next = head == null ? loader.catchUp(state) : loader.catchUpTo(state, head);
          } while (!holder.compareAndSet(state, next));
          return next;
        }));
  }

  /**
   * This writer's state is not at the fence's head (another writer committed meanwhile), or the
   * branch was pushed on by hand: the command is refused once the writer has caught up.
   */
  private static final class Stale extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stale() {
      super("the data moved under the writer", null, false, false);
    }
  }

  /** Whether {@code id} is the commit named {@code commit} (both null: an unborn branch). */
  private static boolean same(ObjectId id, String commit) {
    return id == null ? commit == null : id.name().equals(commit);
  }

  private static String name(ObjectId id) {
    return id == null ? "nothing (unborn)" : id.name();
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
    if (busy) {
      return;
    }
    if (fenceCheckDue) {
      busy = true;
      fenceCheckDue = false;
      checkFence().onComplete(ar -> {
        if (ar.failed()) {
          log.warn("the branch fence check failed: {}", String.valueOf(ar.cause().getMessage()));
        }
        busy = false;
        drain();
      });
      return;
    }
    if (queue.isEmpty()) {
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
        .compose(tx -> withSession(conn, fence.lock(conn)
            .compose(row -> inStep(conn, before, row))
            .compose(parent -> handler.plan(new WriteContext(before, conn, now), command)
                .compose(plan -> plan.privateWork().apply(conn).map(plan))
                .compose(plan -> expired(deadline) ? Future.<Committed>failedFuture(expiredError())
                    : writeCommit(parent, plan, command, now)))
            .compose(done -> done.commit() == null ? Future.succeededFuture(done)
                : fence.record(conn, done.commit()).map(done)))
            .compose(done -> tx.commit().map(done))
            .onFailure(err -> tx.rollback()))
        .eventually(conn::close))
        .recover(this::refuseStale)
        .compose(this::moveBranch)
        .map(done -> publish(before, done));
  }

  /**
   * {@code work}, done in {@code conn}'s transaction before its commit; if the session ended meanwhile
   * (PostgreSQL ends a transaction that idles past the fence's limit: this writer stalled), the
   * refusal says that nothing was committed and the command may be sent again.
   */
  private static <T> Future<T> withSession(SqlConnection conn, Future<T> work) {
    boolean[] ended = {false};
    conn.closeHandler(v -> ended[0] = true);
    return work.recover(err -> {
      if (ended[0] && ApiError.from(err) == null) {
        log.warn("a write's database session ended before its commit (idle past the branch fence's limit, "
            + "or the database went away); nothing was committed: {}", String.valueOf(err.getMessage()));
        return Future.failedFuture(expiredError());
      }
      return Future.failedFuture(err);
    });
  }

  /**
   * The parent of this write: the fence's head, once the branch is at it. When this writer's state
   * is not at the fence (another writer committed meanwhile: this one was frozen or cut off), or the
   * branch was pushed on by hand, the command is {@link Stale}. A branch merely behind or off the
   * fence is put back and the write goes on.
   */
  private Future<ObjectId> inStep(SqlConnection conn, PublicState before, ObjectId row) {
    if (!same(row, before.commit())) {
      log.warn("this writer's state is at {}, the recorded head at {}: catching up", before.commit(), name(row));
      return Future.failedFuture(new Stale());
    }
    return fence.putInStep(conn, row).compose(head -> same(head, before.commit()) ? Future.succeededFuture(head)
        : Future.failedFuture(new Stale())); // the row takes the hand push in its own transaction
  }

  /**
   * After a {@link Stale} command: refuses it and every command waiting (their senders may have
   * retried elsewhere), once the fence check has caught this writer up, so the refusal's retry
   * finds the data as it is.
   */
  private Future<Committed> refuseStale(Throwable err) {
    if (!(err instanceof Stale)) {
      return Future.failedFuture(err);
    }
    refuseWaiting();
    return checkFence().transform(caughtUp -> {
      if (caughtUp.failed()) {
        log.warn("catching up with the branch fence failed: {}", String.valueOf(caughtUp.cause().getMessage()));
        fenceCheckDue = true;
      }
      return Future.failedFuture(conflict());
    });
  }

  /** What the git step produced: the plan, the new commit (null when nothing changed) and the bytes written. */
  private record Committed(WritePlan plan, ObjectId parent, ObjectId commit, List<JsonObject> events,
      String message, PersonIdent author) {}

  /** The commit's objects, written and flushed; the branch does not move yet. */
  private Future<Committed> writeCommit(ObjectId parent, WritePlan plan, WriteCommand command, Instant now) {
    if (plan.changes().isEmpty()) {
      return Future.succeededFuture(new Committed(plan, parent, null, List.of(), null, null));
    }
    List<PathChange> paths = new ArrayList<>();
    List<JsonObject> events = new ArrayList<>();
    for (RecordChange c : plan.changes()) {
      byte[] bytes = c.isDelete() ? null : codec.encode(c.sheet(), c.record());
      paths.add(bytes == null ? PathChange.delete(c.path()) : PathChange.put(c.path(), bytes));
      events.add(new JsonObject().put("sheet", c.sheet().sheetName()).put("key", c.key())
          .put("content", bytes == null ? null : new String(bytes, StandardCharsets.UTF_8)));
    }
    String message = plan.message().render();
    PersonIdent author = attribution.ident(command.actor(), now);
    long started = System.nanoTime();
    return vertx.executeBlocking(() -> git.write(parent, paths, author, message)).map(commit -> {
      if (commit != null) {
        DomainMetrics.commit(Duration.ofNanos(System.nanoTime() - started));
      }
      return commit == null ? new Committed(plan, parent, null, List.of(), null, null)
          : new Committed(plan, parent, commit, events, message, author);
    });
  }

  /**
   * Moves the branch to a commit the fence already holds. The write is in whatever happens here: if
   * the branch is not where it was (something moved it in the meantime), the next fence check puts
   * it right, and until then replicas follow the fence, not the branch.
   */
  private Future<Committed> moveBranch(Committed done) {
    if (done.commit() == null) {
      return Future.succeededFuture(done);
    }
    return vertx.executeBlocking(() -> git.advance(done.parent(), done.commit(), done.author(), done.message()))
        .transform(moved -> {
          if (moved.failed() || !moved.result()) {
            log.warn("the data branch did not move to {} (recorded); the next fence check moves it",
                done.commit().name(), moved.cause());
            fenceCheckDue = true;
          }
          return Future.succeededFuture(done);
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

  private static void fail(Message<JsonObject> message, Throwable cause) {
    WriteFailures.answer(message, cause);
  }
}
