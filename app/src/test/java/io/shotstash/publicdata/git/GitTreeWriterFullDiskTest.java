package io.shotstash.publicdata.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.app.DiskFull;
import io.shotstash.testing.SmallDisk;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GitTreeWriter} on a real full disk (an 8 MiB tmpfs), given back one page at a time: each
 * failed commit leaves the branch where it was, no lock and no temporary file, including the one
 * whose objects all fit and only the branch's lock file did not; the first commit with room moves
 * the branch, and {@code git fsck} finds the repository sound.
 */
class GitTreeWriterFullDiskTest {
  private static final String BRANCH = "published";
  /** A fixed time: every attempt writes the very same objects, so a retry reuses what an earlier one wrote. */
  private static final PersonIdent AUTHOR =
      new PersonIdent("Shotstash Test", "test@shotstash.invalid", Instant.parse("2024-05-01T10:00:00Z"),
          ZoneOffset.UTC);

  private SmallDisk disk;
  private Path gitDir;
  private Repository repo;
  private GitTreeWriter writer;

  @BeforeEach
  void setUp() throws Exception {
    disk = SmallDisk.mount(8);
    gitDir = disk.path().resolve("data.git");
    Git.init().setBare(true).setDirectory(gitDir.toFile()).setInitialBranch(BRANCH).call().close();
    repo = new FileRepositoryBuilder().setGitDir(gitDir.toFile()).setMustExist(true).build();
    writer = new GitTreeWriter(repo, BRANCH);
  }

  @AfterEach
  void tearDown() {
    try {
      writer.close();
      repo.close();
    } finally {
      disk.close();
    }
  }

  private static PathChange put(String path, String content) {
    return PathChange.put(path, content.getBytes(StandardCharsets.UTF_8));
  }

  /** Files a failed write could leave behind: locks and JGit's temporary object files. */
  private List<Path> leftovers() throws IOException {
    try (Stream<Path> files = Files.walk(gitDir)) {
      return files.filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().endsWith(".lock") || p.getFileName().toString().startsWith("noz"))
          .toList();
    }
  }

  private static String stackOf(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  @Test
  void everyFailedCommitLeavesTheBranchAndTheFirstWithRoomMovesIt() throws Exception {
    CommitResult first =
        writer.commit(null, List.of(put("people/ada.toml", "fullName = 'Ada'\n")), AUTHOR, "add ada\n");
    ObjectId head = ((CommitResult.Committed) first).commit();
    long page = Files.getFileStore(disk.path()).getBlockSize();
    long filled = disk.fill();
    Path filler = disk.path().resolve("filler.bin");

    boolean refUpdateFailed = false;
    CommitResult result = null;
    // a blob, two trees, the commit and the branch's lock file: a page each on a tmpfs
    for (int freed = 0; freed <= 16 && result == null; freed++) {
      try (FileChannel f = FileChannel.open(filler, StandardOpenOption.WRITE)) {
        f.truncate(filled - freed * page);
      }
      CommitResult[] committed = {null};
      Throwable failure = catchThrowable(() -> committed[0] = writer.commit(head,
          List.of(put("people/ada.toml", "fullName = 'Ada Lovelace'\n")), AUTHOR, "rename ada\n"));
      if (failure == null) {
        result = committed[0];
        continue;
      }
      assertThat(DiskFull.is(failure)).as(stackOf(failure)).isTrue();
      assertThat(writer.head()).isEqualTo(head);
      assertThat(repo.exactRef("refs/heads/" + BRANCH).getObjectId()).isEqualTo(head);
      assertThat(leftovers()).isEmpty();
      refUpdateFailed |= stackOf(failure).contains("RefUpdate");
    }

    assertThat(refUpdateFailed).as("some attempt wrote every object and failed only on the branch's lock").isTrue();
    assertThat(result).isInstanceOf(CommitResult.Committed.class);
    assertThat(writer.head()).isEqualTo(((CommitResult.Committed) result).commit());
    assertThat(repo.parseCommit(writer.head()).getParent(0)).isEqualTo(head);
    disk.free();
    Process fsck = new ProcessBuilder("git", "--git-dir=" + gitDir, "fsck", "--full", "--no-dangling")
        .redirectErrorStream(true).start();
    String out = new String(fsck.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(fsck.waitFor()).as(out).isZero();
    assertThat(out).doesNotContainIgnoringCase("error").doesNotContainIgnoringCase("missing");
  }
}
