package io.shotstash.publicdata.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer killed while moving the branch leaves {@code refs/heads/<branch>.lock} behind. The next
 * writer (another node of a cluster, or the same one restarted) removes it once it is clearly stale,
 * instead of failing every write from then on; a fresh lock (a live writer's) is left alone.
 */
class StaleBranchLockTest {
  @TempDir
  Path tmp;

  private Repository repo;
  private GitTreeWriter writer;
  private Path lock;

  @BeforeEach
  void setUp() throws Exception {
    Path gitDir = tmp.resolve("data.git");
    Git.init().setBare(true).setDirectory(gitDir.toFile()).setInitialBranch("published").call().close();
    repo = new FileRepositoryBuilder().setGitDir(gitDir.toFile()).setMustExist(true).build();
    writer = new GitTreeWriter(repo, "published");
    lock = gitDir.resolve("refs/heads/published.lock");
  }

  @AfterEach
  void tearDown() {
    writer.close();
    repo.close();
  }

  private CommitResult commit(ObjectId parent, String name) {
    return writer.commit(parent, List.of(PathChange.put("people/" + name + ".toml",
        ("name = '" + name + "'\n").getBytes(StandardCharsets.UTF_8))), GitTreeWriterTest.AUTHOR, "add " + name);
  }

  @Test
  void aLockLeftByADeadWriterIsRemovedAndTheCommitGoesThrough() throws Exception {
    ObjectId first = ((CommitResult.Committed) commit(null, "ada")).commit();
    Files.writeString(lock, first.name() + "\n");
    Files.setLastModifiedTime(lock, FileTime.from(Instant.now().minusMillis(BranchRef.STALE_LOCK_MILLIS + 5_000)));

    CommitResult second = commit(first, "bob");

    assertThat(second).isInstanceOf(CommitResult.Committed.class);
    assertThat(writer.head()).isEqualTo(((CommitResult.Committed) second).commit());
    assertThat(lock).doesNotExist();
  }

  @Test
  void aFreshLockIsAnotherWritersAndWins() throws Exception {
    ObjectId first = ((CommitResult.Committed) commit(null, "ada")).commit();
    Files.writeString(lock, first.name() + "\n");

    CommitResult second = commit(first, "bob");

    assertThat(second).isInstanceOf(CommitResult.Conflict.class);
    assertThat(writer.head()).isEqualTo(first);
    assertThat(lock).exists();
  }
}
