package io.shotstash.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.util.concurrent.CompletionException;
import org.eclipse.jgit.errors.ObjectWritingException;
import org.junit.jupiter.api.Test;

/** The disk-full rule on the shapes ENOSPC and EDQUOT take in the JDK, Vert.x and JGit. */
class DiskFullTest {

  @Test
  void aStreamWriteOutOfSpaceIsFull() {
    // FileOutputStream, FileChannel and AsynchronousFileChannel writes
    assertThat(DiskFull.is(new IOException("No space left on device"))).isTrue();
  }

  @Test
  void aFilesCallOutOfSpaceIsFullWhateverTheFileIsCalled() {
    assertThat(DiskFull.is(new FileSystemException("/data/media/tmp/x", null, "No space left on device"))).isTrue();
    // the file name is not the reason: a file named after the error says nothing about the disk
    assertThat(DiskFull.is(new FileSystemException("/data/No space left on device", null, "Permission denied")))
        .isFalse();
  }

  @Test
  void aQuotaIsFull() {
    assertThat(DiskFull.is(new IOException("Disk quota exceeded"))).isTrue(); // glibc
    assertThat(DiskFull.is(new IOException("Quota exceeded"))).isTrue(); // musl
  }

  @Test
  void wrappedFailuresAreFoundThroughTheirCauses() {
    IOException enospc = new IOException("No space left on device");
    // JGit's loose-object inserter, then GitTreeWriter, then the worker thread's completion
    ObjectWritingException jgit = new ObjectWritingException("Unable to create new object: /repo/objects/ab/cd");
    jgit.initCause(enospc);
    Throwable chain = new CompletionException(new UncheckedIOException("commit on refs/heads/published failed", jgit));
    assertThat(DiskFull.is(chain)).isTrue();
    // Vert.x's file system wrapper
    assertThat(DiskFull.is(new io.vertx.core.file.FileSystemException("Unable to open file", enospc))).isTrue();
  }

  @Test
  void aSuppressedFailureCounts() {
    // a close that failed after the write it was cleaning up after
    IOException close = new IOException("Stream closed");
    close.addSuppressed(new IOException("No space left on device"));
    assertThat(DiskFull.is(close)).isTrue();
  }

  @Test
  void otherFaultsAreNotFull() {
    assertThat(DiskFull.is(new IOException("Input/output error"))).isFalse();
    assertThat(DiskFull.is(new AccessDeniedException("/data/media"))).isFalse();
    assertThat(DiskFull.is(new IOException((String) null))).isFalse();
    assertThat(DiskFull.is(new IllegalStateException("File handle is closed"))).isFalse();
    assertThat(DiskFull.is(null)).isFalse();
  }

  @Test
  void aRefusalThatAlreadyTravelledIsNotReadAgain() {
    // the writer's own 503 storage_full comes back as a ReplyException whose text is JSON, not the errno text
    assertThat(DiskFull.is(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 503,
        "{\"code\":\"storage_full\",\"message\":\"The data folder is full\"}"))).isFalse();
  }

  @Test
  void aCycleOfCausesEnds() {
    IOException a = new IOException("a");
    IOException b = new IOException("b", a);
    a.initCause(b);
    assertThat(DiskFull.is(a)).isFalse();
  }
}
