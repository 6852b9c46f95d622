package io.shotstash.publicdata.git;

import java.util.Objects;
import org.eclipse.jgit.lib.ObjectId;

/** Outcome of {@link GitTreeWriter#commit}. */
public sealed interface CommitResult {

  /**
   * A commit was written and the branch now points at it.
   *
   * @param commit the new commit
   * @param parent the commit the branch pointed at before, or {@code null} if it was unborn
   */
  record Committed(ObjectId commit, ObjectId parent) implements CommitResult {
    public Committed {
      Objects.requireNonNull(commit, "commit");
    }
  }

  /**
   * The changes left the tree exactly as it was (for an unborn branch: left it empty). No commit
   * was written and the branch did not move.
   */
  record NoChange() implements CommitResult {}

  /**
   * The branch was not at the expected parent, or its ref was locked by someone else at that
   * moment; nothing moved. If {@code actualHead} equals the expected parent it was the lock,
   * and retrying is reasonable; otherwise rebase the change onto {@code actualHead}.
   *
   * @param actualHead where the branch actually points, or {@code null} if it is unborn
   */
  record Conflict(ObjectId actualHead) implements CommitResult {}
}
