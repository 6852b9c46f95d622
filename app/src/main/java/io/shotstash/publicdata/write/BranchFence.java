package io.shotstash.publicdata.write;

import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.Objects;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The branch fence: the data branch's head kept in PostgreSQL ({@code public_data_head}, V11), so
 * that the cluster's writers exclude each other by a row lock, which does not depend on time,
 * instead of by the branch's lock file, which a writer frozen inside a branch update re-creates
 * when it wakes. docs/public-data.md → The branch fence says how the pieces fit.
 *
 * <ul>
 *   <li>Each write locks the row ({@link #lock}) in its transaction, checks it against the writer's
 *       state, writes the commit's objects, sets the row ({@link #record}) and commits; only then
 *       does the branch move. The row is the truth; the ref file follows it and may lag.</li>
 *   <li>A writer whose database session ended (a freeze longer than {@link #DEFAULT_IDLE_TIMEOUT}:
 *       PostgreSQL ends a transaction left idle that long) cannot commit, so it changes nothing.</li>
 *   <li>A ref that is not at the row is put right by the next writer ({@link #decide}): back to the
 *       row when it is behind it or off it (a writer that stopped before moving the branch, or one
 *       that woke and finished an old update), or the row follows the ref when the ref has the row
 *       in its history (a commit pushed by hand on top).</li>
 * </ul>
 */
public final class BranchFence {
  private static final Logger LOG = LoggerFactory.getLogger(BranchFence.class);

  /**
   * A writer's transaction idle this long is ended by PostgreSQL, and its row lock with it. A write
   * is idle in its transaction while it builds the commit (milliseconds; seconds for an import of
   * thousands of records), so this only ends writers that stopped: frozen, or cut off.
   */
  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

  // ---- the SQL (one row per branch; each statement runs in the writer's transaction) ----

  /**
   * Set first in each transaction: PostgreSQL ends it when it idles longer than the fence allows,
   * and a writer waits for the row lock a little longer than that, so a writer that stopped while
   * holding the row is ended before the next one gives up waiting. The session is named as a
   * writer's for the transaction's length, so that a writer taking over can find it ({@link #TAKE_OVER}).
   */
  static final String LIMITS = "SELECT set_config('idle_in_transaction_session_timeout', $1, true), "
      + "set_config('lock_timeout', $2, true), set_config('application_name', $3, true)";

  /** What {@link #LIMITS} names a writer's session while it is in a write's transaction. */
  static final String SESSION_NAME = "shotstash git writer";

  /**
   * Run by a writer as it takes over (its own connection, no transaction): ends every other session
   * in a writer's transaction, so that a writer frozen while holding the row (a node taken for dead)
   * frees it at once instead of after its idle limit. Whatever that transaction was doing rolls back:
   * nothing of it was committed, and its caller is told so when it wakes.
   */
  static final String TAKE_OVER = "SELECT count(pg_terminate_backend(pid)) AS ended FROM pg_stat_activity "
      + "WHERE datname = current_database() AND application_name = '" + SESSION_NAME + "' "
      + "AND pid <> pg_backend_pid()";

  /** The write mutex across nodes: held until the transaction ends. */
  static final String LOCK = "SELECT commit_id FROM public_data_head WHERE branch = $1 FOR UPDATE";

  /** The first time (a new database, or an operator deleted the row): the row starts at the ref. */
  static final String CREATE = "INSERT INTO public_data_head (branch, commit_id) VALUES ($1, $2) "
      + "ON CONFLICT (branch) DO NOTHING";

  /** Under the lock from {@link #LOCK}. */
  static final String SET = "UPDATE public_data_head SET commit_id = $2, updated_at = now() WHERE branch = $1";

  /** Without a lock: what replicas follow. */
  static final String READ = "SELECT commit_id FROM public_data_head WHERE branch = $1";

  private final Vertx vertx;
  private final GitTreeWriter git;
  private final String branch;
  private final Duration idleTimeout;

  BranchFence(Vertx vertx, GitTreeWriter git, String branch, Duration idleTimeout) {
    this.vertx = vertx;
    this.git = git;
    this.branch = key(branch);
    this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
  }

  /** The row's key for a branch name ({@code published} → {@code refs/heads/published}). */
  static String key(String branch) {
    return branch.startsWith(Constants.R_REFS) ? branch : Constants.R_HEADS + branch;
  }

  /** The head replicas follow, or null before any writer has recorded one. */
  public static Future<ObjectId> read(SqlClient client, String branch) {
    return client.preparedQuery(READ).execute(Tuple.of(key(branch))).map(BranchFence::commitOf);
  }

  /**
   * Ends the transactions of other writers' sessions (a writer frozen in a write: see
   * {@link #TAKE_OVER}); answers how many. A role that may not end them leaves them to their idle
   * limit, and the failure is only logged.
   */
  static Future<Integer> takeOver(SqlClient client) {
    return client.query(TAKE_OVER).execute().map(rows -> rows.iterator().next().getInteger("ended"))
        .onSuccess(ended -> {
          if (ended > 0) {
            LOG.warn("ended {} transaction(s) of another git writer (frozen or cut off) on taking over", ended);
          }
        })
        .recover(err -> {
          LOG.warn("could not end other git writers' transactions ({}); they end after their idle limit",
              String.valueOf(err.getMessage()));
          return Future.succeededFuture(0);
        });
  }

  /**
   * Locks the row in {@code conn}'s transaction and answers the head it holds; creates it from the
   * ref first if there is none (null: no row and an unborn branch).
   */
  Future<ObjectId> lock(SqlConnection conn) {
    long idleMillis = idleTimeout.toMillis();
    return conn.preparedQuery(LIMITS)
        .execute(Tuple.of(idleMillis + "ms", (idleMillis + idleMillis / 3) + "ms", SESSION_NAME))
        .compose(v -> selectForUpdate(conn))
        .compose(head -> head != null ? Future.succeededFuture(head)
            : vertx.executeBlocking(git::head).compose(ref -> ref == null ? Future.succeededFuture(null)
                : conn.preparedQuery(CREATE).execute(Tuple.of(branch, ref.name()))
                    .compose(v -> selectForUpdate(conn))));
  }

  private Future<ObjectId> selectForUpdate(SqlConnection conn) {
    return conn.preparedQuery(LOCK).execute(Tuple.of(branch)).map(BranchFence::commitOf);
  }

  /** Sets the row, locked by {@link #lock} in the same transaction. */
  Future<Void> record(SqlConnection conn, ObjectId commit) {
    return conn.preparedQuery(SET).execute(Tuple.of(branch, commit.name())).mapEmpty();
  }

  private static ObjectId commitOf(RowSet<Row> rows) {
    return rows.size() == 0 ? null : ObjectId.fromString(rows.iterator().next().getString("commit_id"));
  }

  /** What to do when the ref and the row are compared. */
  sealed interface Repair {
    /** The ref is at the row: nothing to do. */
    record InStep() implements Repair {}

    /** Move the ref from {@code from} (null: unborn) back to the row's {@code to}. */
    record Restore(ObjectId from, ObjectId to) implements Repair {}

    /** The row follows the ref: no row yet, or commits pushed by hand on top of the row's. */
    record Adopt(ObjectId ref) implements Repair {}

    /** The row names a commit the repository does not have: an operator has to decide. */
    record Broken(String why) implements Repair {}
  }

  /**
   * The rule, pure.
   *
   * @param row            the row's head, or null when there is no row
   * @param ref            the branch's commit, or null while it is unborn
   * @param rowInRepo      whether the repository has the row's commit
   * @param refOnTopOfRow  whether the ref has the row's commit in its history
   */
  static Repair decide(ObjectId row, ObjectId ref, boolean rowInRepo, boolean refOnTopOfRow) {
    if (row == null) {
      return ref == null ? new Repair.InStep() : new Repair.Adopt(ref);
    }
    if (ref != null && ref.equals(row)) {
      return new Repair.InStep();
    }
    if (!rowInRepo) {
      return new Repair.Broken("the recorded head " + row.name() + " of " + "the data branch is not in the "
          + "repository (was the repository replaced or restored from a backup?); operations.md -> The branch fence");
    }
    if (ref != null && refOnTopOfRow) {
      return new Repair.Adopt(ref);
    }
    return new Repair.Restore(ref, row);
  }

  /**
   * Applies {@link #decide}'s repair for {@code row}, the head locked in {@code conn}'s transaction,
   * and answers the head after it: the branch moved back to the row, or the row set to a commit
   * pushed by hand on top; {@link Broken} when the row names a commit the repository does not have.
   */
  Future<ObjectId> putInStep(SqlConnection conn, ObjectId row) {
    return vertx.executeBlocking(() -> {
      Repair repair = inspect(row);
      if (repair instanceof Repair.Restore r) {
        LOG.warn("the data branch was at {}, not at the recorded head {}: moving it there (a writer that stopped "
            + "before moving it, or woke from a freeze and finished an old update)", name(r.from()), r.to().name());
        if (!git.moveBranch(r.from(), r.to())) {
          throw ApiError.of(503, "write_conflict", "The data changed under this write; try again").toException();
        }
      }
      return repair;
    }).compose(repair -> {
      if (repair instanceof Repair.Restore r) {
        return Future.succeededFuture(r.to());
      }
      if (repair instanceof Repair.Adopt a) {
        if (row != null) {
          LOG.warn("the data branch moved from {} to {} on top of the recorded head (pushed by hand): taking it",
              row.name(), a.ref().name());
        }
        return record(conn, a.ref()).map(a.ref());
      }
      if (repair instanceof Repair.Broken b) {
        return Future.failedFuture(new Broken(b.why()));
      }
      return Future.succeededFuture(row);
    });
  }

  /** The row names a commit the repository does not have ({@link Repair.Broken}): an operator decides. */
  static final class Broken extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Broken(String why) {
      super(why);
    }
  }

  private static String name(ObjectId id) {
    return id == null ? "nothing (unborn)" : id.name();
  }

  /** Reads the facts {@link #decide} needs (blocking: JGit). */
  Repair inspect(ObjectId row) {
    ObjectId ref = git.head();
    boolean rowInRepo = row != null && git.hasCommit(row);
    boolean onTop = rowInRepo && ref != null && !ref.equals(row) && git.hasCommit(ref) && git.descendsFrom(ref, row);
    return decide(row, ref, rowInRepo, onTop);
  }
}
