package io.shotstash.media;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.shotstash.metrics.Metrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.streams.ReadStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Storage} in a local folder (default {@code ./data/media}): {@code originals/}, {@code versions/}, {@code tmp/},
 * and {@code uploads/} for the unfinished bytes of resumable uploads ({@code media.uploads.PartialFiles}).
 *
 * <p>A write is durable when it completes: the temporary file's data is forced to disk, it is
 * renamed into place, and the folder that now names it is forced too, all in one blocking step off
 * the event loop. Callers answer the client and commit the row only after that, so a 201 (or a
 * recorded output) never names a file a power cut could lose or leave empty.
 */
public final class LocalStorage implements Storage {
  private static final Logger log = LoggerFactory.getLogger(LocalStorage.class);
  private static final Pattern KEY =
      Pattern.compile(
          "^(originals|versions|avatars)/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\\.[a-z0-9]{1,10})?$");
  /** How this storage names its temporary files: a random UUID, nothing else. */
  private static final Pattern TEMP_NAME =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final Vertx vertx;
  private final Path root;
  /**
   * Where the blocking step of a write (force, rename, force the folder) runs. Forcing a 20 GB file
   * can take minutes: on Vert.x's worker pool it would trip the blocked-thread warning (60 s) and
   * hold threads that other blocking work (the git writer) waits for. Shared by name, so every
   * storage of this Vert.x uses the same threads.
   */
  private final WorkerExecutor syncs;
  private final Timer fileSyncs;
  private final Timer folderSyncs;
  private final Timer earlySyncs;
  private final long flushEvery;

  /**
   * How many bytes of a streamed body go into the page cache between two early flushes. A write
   * must be on disk before it completes; left to the end, forcing a big body waits for the disk to
   * write all of it after the last byte came in. Flushing behind the stream instead keeps the disk
   * busy while the network still delivers, so at the end only the last stretch is left to wait for.
   * 64 MiB: a few hundred milliseconds of a fast disk, so few flushes (each one also commits the
   * file system's journal) and little left at the end.
   */
  static final long FLUSH_EVERY = 64L << 20;

  public LocalStorage(Vertx vertx, Path root) throws IOException {
    this(vertx, root, Metrics.registry());
  }

  public LocalStorage(Vertx vertx, Path root, MeterRegistry meters) throws IOException {
    this(vertx, root, meters, FLUSH_EVERY);
  }

  /**
   * Makes the folders, and removes the temporary files a killed process left (see {@link
   * #removeLeftovers}). Blocks: call it off the event loop. {@code flushEvery}: see {@link
   * #FLUSH_EVERY}; tests make it small to flush small bodies behind the stream too.
   */
  LocalStorage(Vertx vertx, Path root, MeterRegistry meters, long flushEvery) throws IOException {
    this.vertx = vertx;
    this.flushEvery = flushEvery;
    this.root = root.toAbsolutePath().normalize();
    for (String dir : new String[]{"originals", "versions", "avatars", "tmp", "uploads"}) {
      Files.createDirectories(this.root.resolve(dir));
    }
    this.syncs = vertx.createSharedWorkerExecutor("shotstash-storage", 8, 1, TimeUnit.HOURS);
    this.fileSyncs = Timer.builder("shotstash.storage.fsync").tag("target", "file")
        .description("Forcing a stored file's bytes to disk before it is renamed into place").register(meters);
    this.folderSyncs = Timer.builder("shotstash.storage.fsync").tag("target", "folder")
        .description("Forcing a folder to disk after a file was renamed into it").register(meters);
    this.earlySyncs = Timer.builder("shotstash.storage.fsync").tag("target", "early")
        .description("Flushing a body being streamed, behind the stream, so little is left at its end")
        .register(meters);
    removeLeftovers(processStart());
  }

  /**
   * Deletes the temporary files not touched since {@code before}: a process killed mid-write leaves
   * its file in tmp/ and nothing else ever removes it. Only names this storage gives, and only files
   * older than this process: every write of this process is newer, and so is one another node of a
   * cluster is writing into a shared folder right now (one stalled since before this process
   * started is removed, and that upload fails with 503 and is sent again).
   */
  private void removeLeftovers(Instant before) throws IOException {
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(root.resolve("tmp"))) {
      for (Path file : files) {
        BasicFileAttributes a;
        try {
          a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException gone) {
          continue;
        }
        if (a.isRegularFile() && TEMP_NAME.matcher(file.getFileName().toString()).matches()
            && a.lastModifiedTime().toInstant().isBefore(before) && Files.deleteIfExists(file)) {
          removed++;
        }
      }
    }
    if (removed > 0) {
      log.info("Removed {} temporary file(s) an earlier process left in {}", removed, root.resolve("tmp"));
    }
  }

  /**
   * When this JVM started, as the JVM recorded it before any of our code ran. Not the OS's process
   * start ({@code ProcessHandle.info().startInstant()}): Linux derives it from the boot time in
   * whole seconds, so it can fall up to a second early, before the last write of a process killed
   * just before this one started, and that file would stay.
   */
  private static Instant processStart() {
    return Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());
  }

  @Override
  public Path path(String key) {
    if (key == null || !KEY.matcher(key).matches()) {
      throw new IllegalArgumentException("not a storage key: " + key);
    }
    return root.resolve(key);
  }

  /** Every key under versions/ (for the sweeper's orphan check), with its last-modified time. */
  public Path versionsFolder() {
    return root.resolve("versions");
  }

  @Override
  public Future<Written> write(String key, ReadStream<Buffer> body, long maxBytes) {
    Path target = path(key);
    Path temp = root.resolve("tmp").resolve(UUID.randomUUID().toString());
    FlushBehind flush = new FlushBehind(syncs, temp, flushEvery,
        nanos -> earlySyncs.record(nanos, TimeUnit.NANOSECONDS));
    return vertx.fileSystem().open(temp.toString(), new OpenOptions().setWrite(true).setCreateNew(true))
        .compose(file -> pump(body, file, maxBytes, flush)
            .compose(size -> file.close().map(size))
            .recover(err -> file.close().transform(x -> Future.<Long>failedFuture(err))))
        .compose(size -> flush.settled().map(size))
        .compose(size -> syncs.executeBlocking(() -> {
          try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            force(channel); // fsync works on the file, whichever descriptor asks
          }
          moveIntoPlace(temp, target);
          return new Written(key, size);
        }, false))
        .recover(err -> vertx.fileSystem().delete(temp.toString()).otherwiseEmpty()
            .compose(x -> Future.failedFuture(err)));
  }

  /**
   * A small declared body is collected (never more than it declared) and written to a temporary
   * file, forced and renamed into place in one blocking call: one hand-off to a worker thread
   * instead of one each for open, write, force, close and rename.
   */
  @Override
  public Future<Written> write(String key, ReadStream<Buffer> body, long maxBytes, long declaredBytes) {
    if (declaredBytes <= 0 || declaredBytes > SMALL_BODY_BYTES || declaredBytes > maxBytes) {
      return write(key, body, maxBytes);
    }
    Path target = path(key);
    Path temp = root.resolve("tmp").resolve(UUID.randomUUID().toString());
    // unordered: writes of different uploads are independent (their own temporary and final names),
    // so concurrent ones from the same verticle need not queue behind each other on the worker pool
    return collect(body, declaredBytes).compose(bytes -> syncs.executeBlocking(() -> {
      try {
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          ByteBuffer data = ByteBuffer.wrap(bytes.getBytes());
          while (data.hasRemaining()) {
            channel.write(data);
          }
          force(channel);
        }
        moveIntoPlace(temp, target);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(temp);
        throw e;
      }
      return new Written(key, bytes.length());
    }, false));
  }

  @Override
  public Future<Written> adopt(Path file, String key) {
    Path target = path(key);
    return syncs.executeBlocking(() -> {
      if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
          force(channel); // forced already, so cheap; the new name must never name unforced bytes
        }
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } else if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
        throw new NoSuchFileException(file.toString(), null, "neither the upload's bytes nor " + key + " exist");
      }
      // also when an earlier call moved it and stopped before this: the new name is durable only now.
      // Unlike a write, a failure here keeps the file under its key: it holds the only copy of the bytes.
      long started = System.nanoTime();
      try (FileChannel folder = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
        folder.force(true);
      }
      folderSyncs.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
      return new Written(key, Files.size(target));
    }, false);
  }

  /** Where resumable uploads keep their unfinished bytes: on this storage's file system, so finishing is a rename. */
  public Path uploadsFolder() {
    return root.resolve("uploads");
  }

  /** The file's data (and the size that reads it back) on disk: fdatasync, as dd's conv=fdatasync. */
  private void force(FileChannel channel) throws IOException {
    long started = System.nanoTime();
    channel.force(false);
    fileSyncs.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
  }

  /**
   * Renames a forced temporary file to its key, then forces the folder, so the name survives a
   * power cut too. Blocking.
   */
  private void moveIntoPlace(Path temp, Path target) throws IOException {
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    long started = System.nanoTime();
    try (FileChannel folder = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
      folder.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(target); // a failed write leaves nothing under its key
      throw e;
    }
    folderSyncs.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
  }

  /** The whole body, failing if it is longer than {@code declared}. */
  private static Future<Buffer> collect(ReadStream<Buffer> body, long declared) {
    Promise<Buffer> done = Promise.promise();
    Buffer all = Buffer.buffer((int) declared);
    body.exceptionHandler(done::tryFail);
    body.handler(chunk -> {
      if (done.future().isComplete()) {
        return; // failed already (the client went away): bytes still buffered are dropped
      }
      if (all.length() + chunk.length() > declared) {
        body.handler(null);
        done.tryFail(new IllegalStateException("the body is longer than the " + declared + " bytes it declared"));
        return;
      }
      all.appendBuffer(chunk);
    });
    body.endHandler(v -> done.tryComplete(all));
    body.resume();
    return done.future();
  }

  /**
   * Copies the body into the file with back-pressure ({@link BatchedWrites}), counting bytes and
   * stopping past the limit. Done only once the body ended and every write succeeded.
   */
  private Future<Long> pump(ReadStream<Buffer> body, AsyncFile file, long maxBytes, FlushBehind flush) {
    Promise<Long> done = Promise.promise();
    long[] size = {0};
    // A failed write (ENOSPC) fails only its own future, never the file's exceptionHandler, and the
    // body may end before the last writes are done: without counting them, a file with chunks
    // missing would be renamed into place. Both callbacks run on this context, so no locking.
    boolean[] ended = {false};
    BatchedWrites writes = new BatchedWrites(body, file, flush, (bytes, ar, stillPending) -> {
      if (ar.failed()) {
        // stop storing; the rest of the body is read and dropped, so the route can answer
        body.handler(null);
        body.resume();
        done.tryFail(ar.cause());
      } else if (ended[0] && stillPending == 0) {
        done.tryComplete(size[0]);
      }
    });
    body.exceptionHandler(done::tryFail);
    body.handler(chunk -> {
      if (done.future().isComplete()) {
        return; // failed already (the client went away, the file is closing): never write to it
      }
      size[0] += chunk.length();
      if (size[0] > maxBytes) {
        body.handler(null);
        done.tryFail(new TooLargeException());
        return;
      }
      writes.add(chunk);
    });
    body.endHandler(v -> {
      if (done.future().isComplete()) {
        return;
      }
      ended[0] = true;
      writes.writeRest();
      if (writes.pending() == 0) {
        done.tryComplete(size[0]);
      }
    });
    file.exceptionHandler(done::tryFail);
    body.resume();
    return done.future();
  }

  @Override
  public Future<Boolean> exists(String key) {
    return vertx.fileSystem().exists(path(key).toString());
  }

  @Override
  public Future<Void> delete(String key) {
    String p = path(key).toString();
    return vertx.fileSystem().exists(p).compose(e -> e ? vertx.fileSystem().delete(p) : Future.succeededFuture());
  }
}
