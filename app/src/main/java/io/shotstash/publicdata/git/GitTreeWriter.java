package io.shotstash.publicdata.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Writes commits straight into a (bare) repository, without an index or a working tree.
 *
 * <p>Each {@link #commit} starts from the parent's tree and splices the changes in
 * ({@link TreeSplice}): only the trees on the changed paths are read and rewritten, every other
 * tree is reused by id. Changing {@code people/jane.toml} therefore writes one blob, the
 * {@code people} tree, the root tree and the commit, however many records live elsewhere (the one
 * unavoidable cost: a folder's tree object lists all its entries, so a 20,000-record folder means
 * rewriting a ~1 MB tree). Commits of 1,000 or more changes write a single pack file instead of
 * loose objects. The branch is then moved with a compare-and-set ref update ({@link BranchRef}),
 * so a stale writer gets a {@link CommitResult.Conflict} instead of overwriting someone else's
 * commit. Packing what the commits leave loose is {@link PackMaintenance}'s.
 *
 * <p>This class and those three are the only ones that write git objects or move the branch, and
 * the only users of JGit internals. Everything here is blocking file I/O: call it from a worker
 * thread, never from a Vert.x event loop. The public methods are synchronized, but the design
 * assumes one writer thread; I/O failures surface as {@link UncheckedIOException}. The writer does
 * not own the {@link Repository}: {@link #close()} leaves it open.
 */
public final class GitTreeWriter implements AutoCloseable {

  /** How many commits {@link #maybeRepack()} lets accumulate before packing loose objects. */
  public static final int DEFAULT_REPACK_EVERY = 500;
  /** Commits with at least this many changes write their objects as one pack file. */
  static final int BULK_CHANGES = 1_000;

  private final Repository repo;
  private final BranchRef branch;
  private final PackMaintenance packs;
  private boolean closed;

  /** A writer for {@code refs/heads/<branch>} that repacks every {@value #DEFAULT_REPACK_EVERY} commits. */
  public GitTreeWriter(Repository repo, String branch) {
    this(repo, branch, DEFAULT_REPACK_EVERY);
  }

  /**
   * A writer for {@code refs/heads/<branch>}.
   *
   * @param repackEvery how many commits {@link #maybeRepack()} waits before packing them
   */
  public GitTreeWriter(Repository repo, String branch, int repackEvery) {
    this(repo, branch, repackEvery, true);
  }

  /**
   * A writer for {@code refs/heads/<branch>}; with {@code fullGcs} false, {@link #maybeRepack()}
   * packs and merges layers but never runs the full gc that is due (benchmarks time it apart with
   * {@link #repackNow} and spread it over the commits the policy lets pass before it).
   */
  public GitTreeWriter(Repository repo, String branch, int repackEvery, boolean fullGcs) {
    this.repo = repo;
    this.branch = new BranchRef(repo, branch);
    this.packs = new PackMaintenance(repo, this.branch, repackEvery, fullGcs);
  }

  /** The branch's full name, {@code refs/heads/<branch>}. */
  public String branch() {
    return branch.name();
  }

  /** The commit the branch points at, or {@code null} while the branch is unborn. */
  public ObjectId head() {
    return branch.head();
  }

  /**
   * Applies {@code changes} on top of {@code expectedParent} and moves the branch to the result.
   *
   * <p>Later changes to the same path win over earlier ones. Deleting a path that holds no file
   * is a no-op; folders left empty disappear. A path that would need a file and a folder of the
   * same name (in the changes, or against the parent's tree) is rejected with
   * {@link IllegalArgumentException} before anything is committed.
   *
   * @param expectedParent the commit the branch must point at; {@code null} for an unborn branch
   * @param author         used as author and committer
   * @param message        the commit message, stored verbatim
   * @return {@link CommitResult.Committed}, {@link CommitResult.NoChange} if the tree would not
   *     change (nothing written), or {@link CommitResult.Conflict} if the branch was elsewhere
   */
  public synchronized CommitResult commit(ObjectId expectedParent, List<PathChange> changes,
      PersonIdent author, String message) {
    ensureOpen();
    ObjectId actual = head();
    if (!BranchRef.sameId(actual, expectedParent)) {
      return new CommitResult.Conflict(actual); // cheap early exit: write no objects at all
    }
    ObjectId commit = write(expectedParent, changes, author, message);
    if (commit == null) {
      return new CommitResult.NoChange();
    }
    try (RevWalk walk = new RevWalk(repo)) {
      if (!branch.compareAndSet(expectedParent, commit, false, walk, author, "commit: " + firstLine(message))) {
        return new CommitResult.Conflict(head()); // lost the race after the early check
      }
    } catch (IOException e) {
      throw new UncheckedIOException("commit on " + branch.name() + " failed", e);
    }
    packs.committed();
    return new CommitResult.Committed(commit, expectedParent);
  }

  /**
   * Writes the commit of {@code changes} on top of {@code parent} (its objects, flushed) without
   * moving the branch: the git writer records it in PostgreSQL first and moves the branch after
   * ({@link #advance}); see {@code docs/public-data.md} → The branch fence. The rules on changes are
   * those of {@link #commit}.
   *
   * @param parent the commit to build on; {@code null} for a root commit
   * @return the new commit, or {@code null} if the tree would not change (nothing written)
   */
  public synchronized ObjectId write(ObjectId parent, List<PathChange> changes, PersonIdent author,
      String message) {
    ensureOpen();
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(message, "message");
    TreeSplice splice = new TreeSplice(changes);
    try (ObjectInserter inserter = newInserter(changes.size());
        ObjectReader reader = inserter.newReader();
        RevWalk walk = new RevWalk(reader)) {
      ObjectId parentTree = parent == null ? null : walk.parseCommit(parent).getTree().copy();
      ObjectId newTree = splice.applyTo(parentTree, reader, inserter);
      if (BranchRef.sameId(newTree, parentTree == null ? Constants.EMPTY_TREE_ID : parentTree)) {
        return null;
      }
      ObjectId commit = inserter.insert(commitBuilder(newTree, parent == null ? null : parent.copy(), author, message));
      inserter.flush();
      return commit;
    } catch (IOException e) {
      throw new UncheckedIOException("writing a commit for " + branch.name() + " failed", e);
    }
  }

  /**
   * Moves the branch from {@code parent} to {@code commit}, a commit {@link #write} made on top of
   * it, if the branch is still at {@code parent} (compare-and-set, fast-forward only).
   *
   * @return {@code false} if the branch was elsewhere or its lock was held (nothing moved)
   */
  public synchronized boolean advance(ObjectId parent, ObjectId commit, PersonIdent author, String message) {
    ensureOpen();
    try (RevWalk walk = new RevWalk(repo)) {
      boolean moved = branch.compareAndSet(parent, commit, false, walk, author, "commit: " + firstLine(message));
      if (moved) {
        packs.committed();
      }
      return moved;
    } catch (IOException e) {
      throw new UncheckedIOException("moving " + branch.name() + " failed", e);
    }
  }

  /** Whether the object database holds {@code id} as a commit. */
  public synchronized boolean hasCommit(ObjectId id) {
    return Commits.has(repo, id);
  }

  /** Whether commit {@code descendant} is {@code ancestor} or has it in its history. */
  public synchronized boolean descendsFrom(ObjectId descendant, ObjectId ancestor) {
    return Commits.descends(repo, descendant, ancestor);
  }

  /**
   * Moves the branch from {@code from} to {@code to} if, and only if, it currently points at
   * {@code from}. Used to put the branch back when a step after {@link #commit} fails; the move
   * need not be a fast-forward.
   *
   * @param from the commit the branch must point at, or {@code null} if it must be unborn
   * @param to   the commit to point at (an existing commit; the branch cannot be made unborn)
   * @return {@code false} if the branch was not at {@code from} (nothing moved)
   */
  public synchronized boolean moveBranch(ObjectId from, ObjectId to) {
    ensureOpen();
    Objects.requireNonNull(to, "to");
    try (RevWalk walk = new RevWalk(repo)) {
      return branch.compareAndSet(from, to, true, walk, null, "move branch");
    } catch (IOException e) {
      throw new UncheckedIOException("moving " + branch.name() + " failed", e);
    }
  }

  /**
   * Packs loose objects once {@code repackEvery} commits have been made since the last pack
   * (geometric repacking, {@link PackLayers}): one new pack of the objects of those commits, or,
   * like the digits of a binary counter, one pack of them and the newest packs when the pack below
   * those is less than twice their size; or a full git gc ({@link #repackNow}) once the packs made
   * since the last one hold as many objects as it packed, or when nothing is known yet (the first
   * repack after a start). Runs synchronously on the calling thread, so call it from the writer's
   * thread right after a commit (never from an event loop).
   */
  public synchronized void maybeRepack() {
    packs.maybeRepack();
  }

  /**
   * Runs git gc now: packs every reachable object and the refs. Only loose objects older than
   * the gc prune expiry (two weeks by default) are deleted, so objects of a commit that was just
   * written, or of a concurrent reader's snapshot, are never lost; the packs it replaces stay for
   * {@code gc.prunePackExpire} (one hour).
   */
  public synchronized void repackNow() {
    packs.repackNow();
  }

  /** Objects the last full gc of this writer packed (-1: none since it was made). */
  public synchronized long objectsInFullGc() {
    return packs.objectsInFullGc();
  }

  /** Objects in the packs this writer made since its last full gc (they trigger the next one). */
  public synchronized long objectsPackedSinceFullGc() {
    return packs.objectsPackedSinceFullGc();
  }

  /** Pack files this writer made since its last full gc (after merges). */
  public synchronized int packsSinceFullGc() {
    return packs.packsSinceFullGc();
  }

  /** See {@link PackMaintenance#deleteExpiredReplacedPacks}; tests move the clock with it. */
  synchronized void deleteExpiredReplacedPacks(long nowMillis) {
    packs.deleteExpiredReplacedPacks(nowMillis);
  }

  /**
   * Marks the writer closed. Inserters and readers are opened per call and already released;
   * the repository belongs to whoever opened it and stays open.
   */
  @Override
  public synchronized void close() {
    closed = true;
    packs.close();
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("GitTreeWriter is closed");
    }
  }

  private static CommitBuilder commitBuilder(ObjectId tree, ObjectId parent, PersonIdent author,
      String message) {
    CommitBuilder commit = new CommitBuilder();
    commit.setTreeId(tree);
    if (parent != null) {
      commit.setParentId(parent);
    }
    commit.setAuthor(author);
    commit.setCommitter(author);
    commit.setMessage(message);
    return commit;
  }

  /**
   * Loose objects for a normal commit (a handful of files); one pack file for a bulk commit.
   * Importing, say, 20,000 records as loose objects means creating 20,000 files now and
   * deleting them again at the next gc, which takes seconds; a pack is one sequential write.
   */
  private ObjectInserter newInserter(int changeCount) {
    if (changeCount >= BULK_CHANGES && repo.getObjectDatabase() instanceof ObjectDirectory objects) {
      return objects.newPackInserter();
    }
    return repo.newObjectInserter();
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
