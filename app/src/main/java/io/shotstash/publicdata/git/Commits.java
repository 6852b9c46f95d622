package io.shotstash.publicdata.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

/** Two questions about commits that the writer's fence and the replicas ask (blocking: JGit). */
final class Commits {
  private Commits() {}

  /** Whether the object database holds {@code id} as a commit. */
  static boolean has(Repository repo, ObjectId id) {
    try (RevWalk walk = new RevWalk(repo)) {
      walk.parseCommit(id);
      return true;
    } catch (MissingObjectException | IncorrectObjectTypeException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + id.name() + " failed", e);
    }
  }

  /** Whether commit {@code descendant} is {@code ancestor} or has it in its history. */
  static boolean descends(Repository repo, ObjectId descendant, ObjectId ancestor) {
    try (RevWalk walk = new RevWalk(repo)) {
      return walk.isMergedInto(walk.parseCommit(ancestor), walk.parseCommit(descendant));
    } catch (IOException e) {
      throw new UncheckedIOException("comparing " + descendant.name() + " with " + ancestor.name() + " failed", e);
    }
  }
}
