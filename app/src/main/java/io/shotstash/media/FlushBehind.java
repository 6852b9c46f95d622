package io.shotstash.media;

import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.LongConsumer;

/**
 * Forces a file to disk every {@code every} bytes while its body still streams in, one force at a
 * time, on the storage's own threads: the writes go on meanwhile. A write must be on disk before it
 * is acknowledged; left to the end, forcing a big body waits for the disk to write all of it after
 * the last byte came in, while forcing behind the stream keeps the disk busy as the network
 * delivers, so at the end only the last stretch is left to wait for. Only the event loop of the
 * write touches it. A force that fails (the file already renamed or deleted) is left to the final
 * one, which is what makes the write durable: {@link #settled()} first, then that force.
 */
public final class FlushBehind {
  private final WorkerExecutor syncs;
  private final Path file;
  private final long every;
  private final LongConsumer forcedNanos;
  private long requestedAt;
  private Future<Void> last = Future.succeededFuture();

  /** {@code forcedNanos} hears how long each early force took. */
  public FlushBehind(WorkerExecutor syncs, Path file, long every, LongConsumer forcedNanos) {
    this.syncs = syncs;
    this.file = file;
    this.every = every;
    this.forcedNanos = forcedNanos;
  }

  /** {@code total} bytes of the body were handed to the file so far. */
  public void written(long total) {
    if (!last.isComplete() || total - requestedAt < every) {
      return;
    }
    requestedAt = total;
    last = syncs.executeBlocking(() -> {
      // never CREATE: a file already renamed or deleted is not made again
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        long started = System.nanoTime();
        channel.force(false);
        forcedNanos.accept(System.nanoTime() - started);
      }
      return null;
    }, false);
  }

  /** Once the force in flight (if any) is over, failed or not: the final force then does not run beside it. */
  public Future<Void> settled() {
    return last.otherwiseEmpty();
  }
}
