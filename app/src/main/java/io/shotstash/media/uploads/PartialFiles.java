package io.shotstash.media.uploads;

import io.shotstash.media.BatchedWrites;
import io.shotstash.media.FlushBehind;
import io.shotstash.media.Storage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.streams.ReadStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The bytes of unfinished uploads on disk: {@code <id>.part} (the bytes so far) and {@code
 * <id>.offset} (how many of them are durable, as decimal text) side by side in one folder, on the
 * media storage's file system so a finished part is renamed into place, never copied.
 *
 * <p>The offset file is the truth about an upload's progress. A PATCH writes its bytes after the
 * durable offset, forces them to disk, and only then replaces the offset file (written to a
 * temporary name, forced, renamed, the folder forced): after a crash at any point the offset file
 * names bytes that are on disk, and anything after them is cut off by the next PATCH. Only the
 * holder of the upload's lock ({@link ResumableUploads}) writes either file.
 */
public final class PartialFiles {
  /**
   * Bytes of a PATCH between two forces behind its stream ({@link FlushBehind}): its 204 waits for
   * its bytes to be on disk, and a client sends its next PATCH only after that 204, so what is left
   * to force at the end is time the connection stands idle. 8 MiB: of 4, 8, 16 and 32 MiB, the
   * fastest tus upload of 1 GiB in 64 MiB pieces (docs/benchmarks.md); a force every 64 MiB, as the
   * plain upload does over one long body, would leave a whole 64 MiB piece to the end.
   */
  static final long FLUSH_EVERY = 8L << 20;

  private final Vertx vertx;
  private final Path folder;
  /** The media storage's threads for forcing files (shared by name): a force may take a while. */
  private final WorkerExecutor syncs;

  /** Uploads' parts in {@code folder} (created if missing). Blocks: call it off the event loop. */
  public PartialFiles(Vertx vertx, Path folder) throws IOException {
    this.vertx = vertx;
    this.folder = folder.toAbsolutePath().normalize();
    Files.createDirectories(this.folder);
    this.syncs = vertx.createSharedWorkerExecutor("shotstash-storage", 8, 1, TimeUnit.HOURS);
  }

  /**
   * What a PATCH's body did: bytes written (not yet durable), why it stopped early if it did, and
   * whether the written bytes may be kept: when it ended, or when the client went away after them
   * (never after a failed write, which may leave a hole, nor past the length).
   */
  public record Appended(long written, Throwable stoppedBy, boolean keep) {}

  public Path folder() {
    return folder;
  }

  /** The bytes of upload {@code id} (the id is ours, a UUID, never client text). */
  public Path part(String id) {
    return folder.resolve(checked(id) + ".part");
  }

  Path offsetFile(String id) {
    return folder.resolve(checked(id) + ".offset");
  }

  private static String checked(String id) {
    if (!id.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
      throw new IllegalArgumentException("not an upload id: " + id);
    }
    return id;
  }

  /**
   * Where upload {@code id}'s bytes stand: the durable offset (0 before its first bytes), and how
   * many bytes its part holds (more than the offset when an earlier PATCH failed after writing).
   */
  public record Durable(long offset, long partBytes) {}

  /** {@link Durable} of upload {@code id}, read in one trip to a worker thread. */
  public Future<Durable> durable(String id) {
    Path file = offsetFile(id);
    Path part = part(id);
    return syncs.executeBlocking(() -> {
      long offset = readOffset(file);
      long partBytes;
      try {
        partBytes = Files.size(part);
      } catch (NoSuchFileException e) {
        partBytes = 0;
      }
      return new Durable(offset, partBytes);
    }, false);
  }

  private static long readOffset(Path file) throws IOException {
    try {
      return Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
    } catch (NoSuchFileException e) {
      return 0L;
    }
  }

  /**
   * Appends {@code body} after the durable offset ({@code at}), at most {@code maxBytes}, having
   * declared {@code declared} bytes (-1: unknown; its last stretch is then not forced in small steps,
   * {@link FlushBehind}); bytes a failed earlier PATCH left past the offset are cut off first. A body
   * longer than {@code maxBytes} stops with {@link Storage.TooLargeException}. A client that goes away stops it too, and what was
   * written until then is reported, so the caller can keep it. The body must be paused; this
   * resumes it.
   */
  public Future<Appended> append(String id, Durable at, ReadStream<Buffer> body, long maxBytes, long declared) {
    Path part = part(id);
    long offset = at.offset();
    if (at.partBytes() < offset) {
      return Future.failedFuture(new IllegalStateException("upload " + id + " holds " + at.partBytes()
          + " bytes, less than its durable offset " + offset + ": the file system lost forced bytes"));
    }
    // the usual case (the part ends at the offset) needs no trip to a worker thread before the open
    Future<Void> cut = at.partBytes() == offset ? Future.succeededFuture() : syncs.<Void>executeBlocking(() -> {
      try (FileChannel channel = FileChannel.open(part, StandardOpenOption.WRITE)) {
        channel.truncate(offset);
      }
      return null;
    }, false);
    return cut
        .compose(v -> vertx.fileSystem().open(part.toString(), new OpenOptions().setWrite(true).setCreate(true)
            .setTruncateExisting(false)))
        .compose(file -> {
          file.setWritePos(offset);
          FlushBehind flush = new FlushBehind(syncs, part, FLUSH_EVERY, declared, nanos -> {});
          return pump(body, file, maxBytes, flush).compose(done -> file.close().map(done),
              err -> file.close().transform(x -> Future.failedFuture(err)))
              .compose(done -> flush.settled().map(done));
        });
  }

  /**
   * Makes {@code offset} the durable offset of upload {@code id}: its bytes are forced to disk
   * first, then the offset file is replaced, so the offset never names bytes a power cut could lose.
   */
  public Future<Void> commit(String id, long offset) {
    Path part = part(id);
    Path file = offsetFile(id);
    Path temp = folder.resolve(checked(id) + ".offset.tmp");
    return syncs.executeBlocking(() -> {
      try (FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        channel.force(false);
      }
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer text = ByteBuffer.wrap((offset + "\n").getBytes(StandardCharsets.US_ASCII));
        while (text.hasRemaining()) {
          channel.write(text);
        }
        channel.force(false);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel dir = FileChannel.open(folder, StandardOpenOption.READ)) {
        dir.force(true);
      }
      return null;
    }, false);
  }

  /** Removes what upload {@code id} left on disk (its part, if not yet moved into the library, and its offset). */
  public Future<Void> delete(String id) {
    Path part = part(id);
    Path file = offsetFile(id);
    Path temp = folder.resolve(checked(id) + ".offset.tmp");
    return vertx.executeBlocking(() -> {
      Files.deleteIfExists(part);
      Files.deleteIfExists(temp);
      Files.deleteIfExists(file);
      return null;
    }, false);
  }

  /**
   * Copies the body into the file with back-pressure ({@link BatchedWrites}), counting the bytes
   * whose writes succeeded. Done once no write is pending and the body ended or stopped: a client
   * that went away still has the bytes it sent written (tus resumes after them).
   */
  private static Future<Appended> pump(ReadStream<Buffer> body, AsyncFile file, long maxBytes, FlushBehind flush) {
    Promise<Appended> done = Promise.promise();
    long[] received = {0};
    long[] written = {0};
    boolean[] ended = {false};
    boolean[] writeFailed = {false};
    boolean[] clientGone = {false};
    Throwable[] stop = {null};
    IntConsumer settle = pending -> {
      if (ended[0] && pending == 0) {
        done.tryComplete(new Appended(written[0], stop[0], stop[0] == null || (clientGone[0] && !writeFailed[0])));
      }
    };
    BatchedWrites writes = new BatchedWrites(body, file, flush, (bytes, ar, stillPending) -> {
      if (ar.succeeded()) {
        written[0] += bytes;
      } else if (!writeFailed[0]) {
        // a failed write (a full disk): nothing of this PATCH counts, even if the client went
        // away too (later bytes may sit after a hole); read and drop the rest so the route can answer
        writeFailed[0] = true;
        stop[0] = ar.cause();
        ended[0] = true;
        body.handler(null);
        body.resume();
      }
      settle.accept(stillPending);
    });
    Runnable finish = () -> {
      if (ended[0]) {
        return;
      }
      ended[0] = true;
      writes.writeRest();
      settle.accept(writes.pending());
    };
    body.handler(chunk -> {
      if (ended[0]) {
        return;
      }
      if (received[0] + chunk.length() > maxBytes) {
        stop[0] = new Storage.TooLargeException();
        ended[0] = true;
        body.handler(null);
        settle.accept(writes.pending());
        return;
      }
      received[0] += chunk.length();
      writes.add(chunk);
    });
    body.exceptionHandler(err -> {
      if (stop[0] == null) {
        stop[0] = err; // the request's stream fails only when its connection does
        clientGone[0] = true;
      }
      finish.run();
    });
    body.endHandler(v -> finish.run());
    file.exceptionHandler(err -> {
      if (stop[0] == null) {
        stop[0] = err;
      }
    });
    body.resume();
    return done.future();
  }
}
