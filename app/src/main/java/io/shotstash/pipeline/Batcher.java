package io.shotstash.pipeline;

import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Natural batching of one kind of call (the technique of River's and graphile-worker's batched
 * modes): a call that finds nothing in flight goes out at once, alone, so a lone caller waits no
 * longer than before; calls that arrive while a batch is in flight wait, and go out together as
 * the next batch (at most {@code maxBatch} of them) the moment it returns. One batch is in flight at
 * a time, so the batch size follows the load by itself: no timer, no delay.
 *
 * <p>Each caller hears its own {@link Outcome}; a batch that fails as a whole (PostgreSQL away, an
 * error in the statement) changed nothing, since a batch is one statement, and every caller of it
 * hears {@code 503 database_unavailable} with {@code Retry-After}: try again.
 *
 * <p>A batch never carries two calls with the same key (the job a call is about): the later one
 * waits for the next batch, so it sees what the earlier one did, as it would have one call later.
 *
 * <p>Not thread-safe: a batcher belongs to one job-queue instance and is used on its event loop only.
 *
 * @param <R> a call
 * @param <A> what one call is answered when it is accepted
 */
public final class Batcher<R, A> {
  private static final Logger log = LoggerFactory.getLogger(Batcher.class);

  /** What one caller of a batch hears. */
  public sealed interface Outcome<A> {}

  /** The call took effect; {@code value} is its answer. */
  public record Answered<A>(A value) implements Outcome<A> {}

  /** The call was refused on its own (the rest of its batch is not affected). */
  public record Refused<A>(ApiError error) implements Outcome<A> {}

  private record Waiting<R, A>(R call, Promise<A> answer) {}

  private final String name;
  private final int maxBatch;
  private final Function<List<R>, Future<List<Outcome<A>>>> statement;
  private final Function<R, ?> key;
  private final ArrayDeque<Waiting<R, A>> waiting = new ArrayDeque<>();
  private boolean inFlight;
  private long batches;
  private long calls;

  /**
   * {@code statement} runs one batch and answers one outcome per call, in the order of the calls;
   * it must change nothing when it fails.
   */
  public Batcher(String name, int maxBatch, Function<List<R>, Future<List<Outcome<A>>>> statement) {
    this(name, maxBatch, call -> new Object(), statement);
  }

  /** As above; calls with equal {@code key}s never share a batch. */
  public Batcher(String name, int maxBatch, Function<R, ?> key, Function<List<R>, Future<List<Outcome<A>>>> statement) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1");
    }
    this.name = name;
    this.maxBatch = maxBatch;
    this.key = key;
    this.statement = statement;
  }

  /** Queues a call; it goes out with the next batch (at once when none is in flight). */
  public Future<A> submit(R call) {
    Promise<A> answer = Promise.promise();
    waiting.add(new Waiting<>(call, answer));
    if (!inFlight) {
      sendNext();
    }
    return answer.future();
  }

  /** Calls waiting for the batch in flight to return. */
  public int waiting() {
    return waiting.size();
  }

  /** Batches sent and calls they carried, since start (calls / batches is the mean batch size). */
  public long batches() {
    return batches;
  }

  public long calls() {
    return calls;
  }

  private void sendNext() {
    if (waiting.isEmpty()) {
      inFlight = false;
      return;
    }
    inFlight = true;
    List<Waiting<R, A>> batch = new ArrayList<>(Math.min(waiting.size(), maxBatch));
    Set<Object> keys = new HashSet<>();
    for (Iterator<Waiting<R, A>> it = waiting.iterator(); it.hasNext() && batch.size() < maxBatch;) {
      Waiting<R, A> next = it.next();
      if (keys.add(key.apply(next.call()))) {
        batch.add(next);
        it.remove();
      }
    }
    batches++;
    calls += batch.size();
    Future<List<Outcome<A>>> sent;
    try {
      sent = statement.apply(batch.stream().map(Waiting::call).toList());
    } catch (RuntimeException e) {
      sent = Future.failedFuture(e);
    }
    sent.onComplete(ar -> {
      if (ar.succeeded() && ar.result().size() == batch.size()) {
        for (int i = 0; i < batch.size(); i++) {
          answer(batch.get(i).answer(), ar.result().get(i));
        }
      } else {
        Throwable cause = ar.succeeded()
            ? new IllegalStateException(ar.result().size() + " outcomes for " + batch.size() + " calls") : ar.cause();
        failAll(batch, cause);
      }
      sendNext();
    });
  }

  private static <A> void answer(Promise<A> promise, Outcome<A> outcome) {
    if (outcome instanceof Answered<A> a) {
      promise.complete(a.value());
    } else if (outcome instanceof Refused<A> r) {
      promise.fail(r.error().toException());
    }
  }

  /**
   * The whole batch failed: nothing it carried took effect. An outage is what the callers hear
   * either way (retryable); anything else is logged once for the batch, since it is a fault of ours
   * or of the data, not of one caller.
   */
  private void failAll(List<Waiting<R, A>> batch, Throwable cause) {
    ApiError error = retryable(name, batch.size(), cause);
    for (Waiting<R, A> w : batch) {
      w.answer().fail(error.toException());
    }
  }

  /** What each of {@code calls} callers of a statement that failed as a whole hears (and the one log line for it). */
  static ApiError retryable(String name, int calls, Throwable cause) {
    ApiError error = Unavailable.of(cause).orElse(null);
    if (error == null) {
      log.error("a batch of {} {} calls failed as a whole; each caller is told to try again", calls, name, cause);
      return Unavailable.database();
    }
    log.warn("a batch of {} {} calls failed: {}", calls, name, cause.toString());
    return error;
  }
}
