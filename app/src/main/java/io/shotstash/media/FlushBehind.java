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
 *
 * <p>When the body's length is known, its last stretch is forced in steps of {@link #LAST_STEP}:
 * what is left to force after the last byte, while the client waits, is then about one step rather
 * than up to {@code every} bytes. Only the last stretch: small forces all along cost more than they
 * save (a tus upload forced every 2 MiB throughout slowed to a third of its rate for whole PATCHes
 * at a time, docs/benchmarks.md).
 */
public final class FlushBehind {
  /** Bytes between two forces in the last {@code every} bytes of a body of known length. */
  static final long LAST_STEP = 1L << 20;

  private final WorkerExecutor syncs;
  private final Path file;
  private final long every;
  private final long expected;
  private final LongConsumer forcedNanos;
  private long requestedAt;
  private Future<Void> last = Future.succeededFuture();

  /** {@code forcedNanos} hears how long each early force took. */
  public FlushBehind(WorkerExecutor syncs, Path file, long every, LongConsumer forcedNanos) {
    this(syncs, file, every, -1, forcedNanos);
  }

  /** For a body of {@code expected} bytes (-1: unknown), whose last stretch is forced in small steps. */
  public FlushBehind(WorkerExecutor syncs, Path file, long every, long expected, LongConsumer forcedNanos) {
    this.syncs = syncs;
    this.file = file;
    this.every = every;
    this.expected = expected;
    this.forcedNanos = forcedNanos;
  }

  /** {@code total} bytes of the body were handed to the file so far. */
  public void written(long total) {
    if (!last.isComplete() || total - requestedAt < step(total, expected, every)) {
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

  /**
   * Bytes to gather before the next force, {@code total} of {@code expected} (-1: unknown) bytes
   * in: {@code every}, or {@link #LAST_STEP} in the last {@code every} bytes of a known length.
   */
  static long step(long total, long expected, long every) {
    return expected >= 0 && expected - total < every ? Math.min(every, LAST_STEP) : every;
  }

  /** Once the force in flight (if any) is over, failed or not: the final force then does not run beside it. */
  public Future<Void> settled() {
    return last.otherwiseEmpty();
  }
}
