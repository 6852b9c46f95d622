package io.shotstash.media;

import io.vertx.core.AsyncResult;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.streams.ReadStream;

/**
 * The mechanics of copying a streamed body into a file, shared by the plain upload ({@link
 * LocalStorage}) and a tus PATCH: chunks gathered into writes of {@link #BATCH} bytes, the body
 * paused while the file's write queue is full, {@link FlushBehind} told of every write, and the
 * writes still pending counted. What a failed write, the body's end or its error mean is the
 * caller's: it hears each write's outcome. Only the event loop of the body touches it.
 */
public final class BatchedWrites {
  /**
   * Bytes of a streamed body gathered into one write to its file. The body arrives in chunks of a
   * few KiB, and each write is a hop to a worker thread and a system call. With the file's write
   * queue at twice this (room for a batch in flight, so the socket is read while the previous batch
   * is written), one upload holds at most about 768 KiB of heap however fast it arrives.
   */
  public static final int BATCH = 256 << 10;

  /** Hears each write's outcome, and how many writes are still pending after it. */
  @FunctionalInterface
  public interface Written {
    void done(int bytes, AsyncResult<Void> result, int stillPending);
  }

  private final ReadStream<Buffer> body;
  private final AsyncFile file;
  private final FlushBehind flush;
  private final Written written;
  private Buffer batch = Buffer.buffer();
  private long handedOver;
  private int pending;

  public BatchedWrites(ReadStream<Buffer> body, AsyncFile file, FlushBehind flush, Written written) {
    this.body = body;
    this.file = file;
    this.flush = flush;
    this.written = written;
    file.setWriteQueueMaxSize(2 * BATCH);
  }

  /** A chunk of the body: a full batch goes to the file, and the body pauses while the file's queue is full. */
  public void add(Buffer chunk) {
    batch.appendBuffer(chunk);
    if (batch.length() >= BATCH) {
      Buffer full = batch;
      batch = Buffer.buffer();
      write(full);
    }
    if (file.writeQueueFull()) {
      body.pause();
      file.drainHandler(v -> body.resume());
    }
  }

  /** Writes what is gathered but not yet written (the body ended). */
  public void writeRest() {
    if (batch.length() > 0) {
      Buffer rest = batch;
      batch = Buffer.buffer(0);
      write(rest);
    }
  }

  /** Writes handed to the file whose outcome is not known yet. */
  public int pending() {
    return pending;
  }

  private void write(Buffer data) {
    pending++;
    handedOver += data.length();
    file.write(data).onComplete(ar -> {
      pending--;
      written.done(data.length(), ar, pending);
    });
    flush.written(handedOver);
  }
}
