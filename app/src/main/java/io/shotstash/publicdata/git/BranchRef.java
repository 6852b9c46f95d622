package io.shotstash.publicdata.git;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One branch, read and moved only by compare-and-set, so that a move never overwrites one it did
 * not expect. The fence between writers is in PostgreSQL (the git writer's {@code BranchFence}).
 */
final class BranchRef {

  /**
   * A branch lock older than this was left by a writer that died mid-update (an update holds it for
   * milliseconds), or by one frozen inside an update. Breaking a frozen writer's lock lets it, on
   * waking, move the branch back over newer commits; that is safe only because the branch is not
   * the truth: the branch fence in PostgreSQL is, and the git writer puts the branch back where the
   * fence says (docs/public-data.md → The branch fence). The age only keeps a live update (say, a
   * push by hand) from being broken.
   */
  static final long STALE_LOCK_MILLIS = 30_000;
  private static final Logger LOG = LoggerFactory.getLogger(BranchRef.class);

  private final Repository repo;
  private final String refName;

  /** {@code refs/heads/<branch>} of {@code repo}. */
  BranchRef(Repository repo, String branch) {
    this.repo = Objects.requireNonNull(repo, "repo");
    this.refName = Constants.R_HEADS + Objects.requireNonNull(branch, "branch");
    if (!Repository.isValidRefName(refName)) {
      throw new IllegalArgumentException("invalid branch name: " + branch);
    }
  }

  String name() {
    return refName;
  }

  /** The commit the branch points at, or {@code null} while the branch is unborn. */
  ObjectId head() {
    try {
      Ref ref = repo.exactRef(refName);
      return ref == null || ref.getObjectId() == null ? null : ref.getObjectId().copy();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + refName, e);
    }
  }

  /**
   * Moves the branch from {@code from} (null: unborn) to {@code to}, if it is still at {@code from}.
   * The expected old id is always set (zero id for "unborn"), so even with {@code force} (which only
   * skips JGit's fast-forward check) a branch that moved underneath us is not overwritten.
   *
   * @param ident the reflog's identity; null for the repository's default
   * @return true if the branch moved (or already was at the target), false if the compare-and-set lost
   */
  boolean compareAndSet(ObjectId from, ObjectId to, boolean force, RevWalk walk, PersonIdent ident,
      String reflogMessage) throws IOException {
    RefUpdate.Result result = tryUpdate(from, to, force, walk, ident, reflogMessage);
    if (result == RefUpdate.Result.LOCK_FAILURE && sameId(head(), from) && breakStaleLock()) {
      result = tryUpdate(from, to, force, walk, ident, reflogMessage);
    }
    return switch (result) {
      case NEW, FAST_FORWARD, FORCED, NO_CHANGE -> true;
      case LOCK_FAILURE, REJECTED -> false;
      default -> throw new IOException("cannot update " + refName + ": " + result);
    };
  }

  /**
   * Removes the branch's lock file when a writer that died (kill -9, a crash) while moving the
   * branch left it behind: the branch is still where we expect it, and the lock is older than
   * {@link #STALE_LOCK_MILLIS}, far longer than any update holds it. Without this, every later
   * update would fail with LOCK_FAILURE until someone deleted the file by hand.
   */
  private boolean breakStaleLock() {
    File lock = new File(repo.getDirectory(), refName + ".lock");
    long modified = lock.lastModified(); // 0 when there is no lock file
    if (modified == 0 || System.currentTimeMillis() - modified < STALE_LOCK_MILLIS) {
      return false;
    }
    boolean deleted = lock.delete();
    if (deleted) {
      LOG.warn("removed {}, left by a writer that stopped while moving the branch", lock);
    }
    return deleted;
  }

  private RefUpdate.Result tryUpdate(ObjectId from, ObjectId to, boolean force, RevWalk walk,
      PersonIdent ident, String reflogMessage) throws IOException {
    RefUpdate update = repo.updateRef(refName);
    update.setExpectedOldObjectId(from == null ? ObjectId.zeroId() : from);
    update.setNewObjectId(to);
    update.setForceUpdate(force);
    if (ident != null) {
      update.setRefLogIdent(ident);
    }
    update.setRefLogMessage(reflogMessage, false);
    return update.update(walk);
  }

  /** Null-safe id comparison (RevObjects and ObjectIds compare by id). */
  static boolean sameId(AnyObjectId a, AnyObjectId b) {
    return a == null || b == null ? a == b : AnyObjectId.isEqual(a, b);
  }
}
