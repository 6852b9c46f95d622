package io.shotstash.media;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes into a real folder: streamed bodies and small declared ones end up whole under their key,
 * forced to disk (file, then its folder after the rename) before the write completes, and every
 * refusal (over the limit, longer than declared) leaves nothing, not even a temporary file.
 * Temporary files a killed process left behind are removed when the storage starts.
 */
class LocalStorageTest {
  @TempDir
  Path dir;
  Vertx vertx;
  LocalStorage storage;

  MeterRegistry meters;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    meters = new SimpleMeterRegistry();
    storage = new LocalStorage(vertx, dir.resolve("media"), meters);
  }

  /** How many fsyncs of this target ("file" or "folder") the storage made. */
  long fsyncs(String target) {
    Timer t = meters.find("shotstash.storage.fsync").tag("target", target).timer();
    return t == null ? 0 : t.count();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  byte[] bytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  /** Writes {@code content} from a real file stream through {@code write}, closing the stream after. */
  <T> T fromFile(byte[] content, Function<AsyncFile, T> write) throws Exception {
    Path source = Files.write(dir.resolve("source-" + UUID.randomUUID()), content);
    AsyncFile in = vertx.fileSystem().open(source.toString(), new OpenOptions().setRead(true).setWrite(false)).await();
    in.pause();
    try {
      return write.apply(in);
    } finally {
      in.close().otherwiseEmpty().await();
    }
  }

  String key() {
    return Storage.versionKey(UUID.randomUUID().toString(), "bin");
  }

  /** The write answered the whole size, the file holds the whole content, and no temporary file is left. */
  void assertStoredWhole(LocalStorage store, String key, byte[] content, Storage.Written w) throws Exception {
    assertThat(w.size()).isEqualTo(content.length);
    assertThat(store.path(key)).hasBinaryContent(content);
    assertThat(tmpIsEmpty()).isTrue();
  }

  boolean tmpIsEmpty() throws Exception {
    try (var files = Files.list(dir.resolve("media/tmp"))) {
      return files.findAny().isEmpty();
    }
  }

  @Test
  void aStreamedBodyIsStoredWhole() throws Exception {
    byte[] content = bytes(300_000);
    String key = key();
    Storage.Written w = fromFile(content, in -> storage.write(key, in, 1 << 20).await());
    assertStoredWhole(storage, key, content, w);
  }

  @Test
  void eachWriteForcesItsFileAndThenItsFolderBeforeItCompletes() throws Exception {
    byte[] streamed = bytes(300_000);
    byte[] small = bytes(1_000);
    fromFile(streamed, in -> storage.write(key(), in, 1 << 20).await());
    assertThat(fsyncs("file")).isEqualTo(1);
    assertThat(fsyncs("folder")).isEqualTo(1);
    fromFile(small, in -> storage.write(key(), in, 1 << 20, small.length).await());
    assertThat(fsyncs("file")).isEqualTo(2);
    assertThat(fsyncs("folder")).isEqualTo(2);
  }

  /**
   * A long body is flushed behind the stream (here every 16 KiB instead of 64 MiB), and still ends
   * up whole and forced once more at its end; the last early flush is over before the write completes.
   */
  @Test
  void aLongBodyIsFlushedBehindTheStreamAndStoredWhole() throws Exception {
    LocalStorage flushing = new LocalStorage(vertx, dir.resolve("media"), meters, 16 * 1024);
    byte[] content = bytes(300_000);
    String key = key();
    Storage.Written w = fromFile(content, in -> flushing.write(key, in, 1 << 20).await());
    assertStoredWhole(flushing, key, content, w);
    assertThat(fsyncs("early")).isPositive();
    assertThat(fsyncs("file")).isEqualTo(1);
    assertThat(fsyncs("folder")).isEqualTo(1);
  }

  @Test
  void aBodyCutOffWhileFlushedBehindLeavesNothing() throws Exception {
    LocalStorage flushing = new LocalStorage(vertx, dir.resolve("media"), meters, 16 * 1024);
    String key = key();
    Throwable err = fromFile(bytes(300_000), in -> catchThrowable(() -> flushing.write(key, in, 200_000).await()));
    assertThat(err).isInstanceOf(Storage.TooLargeException.class);
    assertThat(flushing.path(key)).doesNotExist();
    assertThat(tmpIsEmpty()).isTrue();
    assertThat(fsyncs("file")).isZero();
  }

  @Test
  void aRefusedWriteForcesNothing() throws Exception {
    byte[] content = bytes(2_000);
    fromFile(content, in -> catchThrowable(() -> storage.write(key(), in, 1_000).await()));
    fromFile(content, in -> catchThrowable(() -> storage.write(key(), in, 1 << 20, 1_999).await()));
    assertThat(fsyncs("file")).isZero();
    assertThat(fsyncs("folder")).isZero();
  }

  /**
   * A process killed mid-upload leaves its temporary file; the next start removes it. Only files
   * named as this storage names them, and only those untouched since before this process started:
   * a newer one may be an upload another node of a cluster is writing into the shared folder now.
   */
  @Test
  void temporaryFilesLeftByAnEarlierProcessAreRemovedAtStart() throws Exception {
    Path tmp = dir.resolve("media/tmp");
    Path left = Files.write(tmp.resolve(UUID.randomUUID().toString()), bytes(1_000));
    Path leftLongAgo = Files.write(tmp.resolve(UUID.randomUUID().toString()), bytes(10));
    Path current = Files.write(tmp.resolve(UUID.randomUUID().toString()), bytes(10));
    Path notOurs = Files.write(tmp.resolve("operator-notes.txt"), bytes(10));
    Instant processStart = ProcessHandle.current().info().startInstant().orElseThrow();
    Files.setLastModifiedTime(left, FileTime.from(processStart.minusSeconds(1)));
    Files.setLastModifiedTime(leftLongAgo, FileTime.from(processStart.minus(Duration.ofDays(30))));
    Files.setLastModifiedTime(notOurs, FileTime.from(processStart.minus(Duration.ofDays(30))));

    new LocalStorage(vertx, dir.resolve("media"), meters);

    assertThat(left).doesNotExist();
    assertThat(leftLongAgo).doesNotExist();
    assertThat(current).exists();
    assertThat(notOurs).exists();
  }

  @Test
  void aSmallDeclaredBodyIsStoredWhole() throws Exception {
    byte[] content = bytes(Storage.SMALL_BODY_BYTES);
    String key = key();
    Storage.Written w = fromFile(content, in -> storage.write(key, in, 1 << 20, content.length).await());
    assertStoredWhole(storage, key, content, w);
  }

  @Test
  void aBodyLongerThanItDeclaredFailsAndLeavesNothing() throws Exception {
    byte[] content = bytes(5_000);
    String key = key();
    Throwable err = fromFile(content, in -> catchThrowable(() -> storage.write(key, in, 1 << 20, 4_999).await()));
    assertThat(err).hasMessageContaining("longer than the 4999 bytes it declared");
    assertThat(storage.path(key)).doesNotExist();
    assertThat(tmpIsEmpty()).isTrue();
  }

  @Test
  void aBodyShorterThanItDeclaredIsStoredAsItCameForTheCallerToJudge() throws Exception {
    byte[] content = bytes(100);
    String key = key();
    Storage.Written w = fromFile(content, in -> storage.write(key, in, 1 << 20, 200).await());
    assertThat(w.size()).isEqualTo(100);
    assertThat(storage.path(key)).hasBinaryContent(content);
  }

  @Test
  void overTheLimitNothingIsKeptEitherWay() throws Exception {
    byte[] content = bytes(2_000);
    String streamed = key();
    String declaredTooLong = key();
    Throwable whenStreamed = fromFile(content, in -> catchThrowable(() -> storage.write(streamed, in, 1_000).await()));
    // a declared length over the limit streams (and is cut off) rather than being collected
    Throwable whenDeclared =
        fromFile(content, in -> catchThrowable(() -> storage.write(declaredTooLong, in, 1_000, 2_000).await()));
    assertThat(whenStreamed).isInstanceOf(Storage.TooLargeException.class);
    assertThat(whenDeclared).isInstanceOf(Storage.TooLargeException.class);
    assertThat(storage.path(streamed)).doesNotExist();
    assertThat(storage.path(declaredTooLong)).doesNotExist();
    assertThat(tmpIsEmpty()).isTrue();
  }
}
