package io.shotstash.media;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.app.DiskFull;
import io.shotstash.testing.SmallDisk;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalStorage} on a real full disk (an 8 MiB tmpfs): a write the disk cannot hold fails with
 * a failure {@link DiskFull} recognises, whether the disk fills in the middle of the body or the
 * body ends before its last write fails, and leaves nothing: no key, no temporary file, no space used.
 */
class LocalStorageFullDiskTest {
  static final int MIB = 1024 * 1024;
  static SmallDisk disk;

  @TempDir
  Path sources;
  Vertx vertx;
  LocalStorage storage;

  @BeforeAll
  static void mount() {
    disk = SmallDisk.mount(8);
  }

  @AfterAll
  static void unmount() {
    disk.close();
  }

  @BeforeEach
  void start() throws IOException {
    vertx = Vertx.vertx();
    storage = new LocalStorage(vertx, disk.path().resolve("media"));
  }

  @AfterEach
  void stop() {
    vertx.close().await();
    disk.free();
  }

  /** A source file of zeros on the ordinary disk, written a chunk at a time. */
  Path zeros(long size) throws IOException {
    Path p = sources.resolve("source-" + UUID.randomUUID());
    byte[] chunk = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(p)) {
      for (long written = 0; written < size; written += chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, size - written));
      }
    }
    return p;
  }

  Throwable writeFails(Path source, String key) {
    AsyncFile in = vertx.fileSystem().open(source.toString(), new OpenOptions().setRead(true).setWrite(false)).await();
    in.pause();
    try {
      return catchThrowable(() -> storage.write(key, in, Long.MAX_VALUE).await());
    } finally {
      in.close().otherwiseEmpty().await();
    }
  }

  long tmpFiles() throws IOException {
    try (Stream<Path> files = Files.list(disk.path().resolve("media/tmp"))) {
      return files.count();
    }
  }

  @Test
  void aBodyBiggerThanTheDiskFailsAndLeavesNothing() throws IOException {
    long free = disk.usableBytes();
    String key = Storage.versionKey(UUID.randomUUID().toString(), "bin");
    Throwable failure = writeFails(zeros(free + 4 * MIB), key);
    assertThat(failure).isNotNull();
    assertThat(DiskFull.is(failure)).as("%s", failure).isTrue();
    assertThat(storage.path(key)).doesNotExist();
    assertThat(tmpFiles()).isZero();
    assertThat(disk.usableBytes()).isEqualTo(free);
  }

  @Test
  void aShortBodyOnAFullDiskFailsEvenThoughItEndedBeforeItsWriteFailed() throws IOException {
    Path source = zeros(100);
    disk.fill();
    String key = Storage.versionKey(UUID.randomUUID().toString(), "bin");
    Throwable failure = writeFails(source, key);
    assertThat(failure).isNotNull();
    assertThat(DiskFull.is(failure)).as("%s", failure).isTrue();
    assertThat(storage.path(key)).doesNotExist();
    assertThat(tmpFiles()).isZero();

    disk.free();
    AsyncFile in = vertx.fileSystem().open(source.toString(), new OpenOptions().setRead(true).setWrite(false)).await();
    in.pause();
    try {
      assertThat(storage.write(key, in, Long.MAX_VALUE).await().size()).isEqualTo(100);
    } finally {
      in.close().otherwiseEmpty().await();
    }
    assertThat(storage.path(key)).hasSize(100);
  }
}
