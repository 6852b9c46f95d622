package io.shotstash.http.graphql;

import io.shotstash.bus.ApiError;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.contract.JobStatus;
import io.vertx.core.Context;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Objects;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source stream of {@code jobUpdated}: the {@code pipeline.job.updated} events of one job (through
 * {@link JobEvents}). Each event about the job fetches the job view ({@link QueueActions#JOB}) and emits it;
 * views leave in strictly growing {@code seq}, so a late or repeated one is dropped. One fetch at a
 * time: events arriving meanwhile are folded into one more fetch. Once it listens, one catch-up fetch covers changes made since the view the subscription started from. The stream
 * completes after a final status (a job already final at the start emits that view, then completes).
 * Every step runs on one Vert.x context, so signals to the subscriber are serial; demand is honoured.
 */
record JobSubscription(Bus bus, JobEvents events, String jobId, JsonObject start) implements Publisher<JsonObject> {
  private static final Logger log = LoggerFactory.getLogger(JobSubscription.class);
  /** Views waiting for demand; beyond this the oldest are dropped (newer views supersede them). */
  private static final int BUFFER = 64;

  @Override
  public void subscribe(Subscriber<? super JsonObject> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber");
    new Feed(subscriber).begin();
  }

  private static boolean isFinal(JsonObject view) {
    return JobStatus.parse(view.getString("status")).isFinal();
  }

  private final class Feed implements Subscription {
    private final Context context = bus.vertx().getOrCreateContext();
    private final Subscriber<? super JsonObject> subscriber;
    private final ArrayDeque<JsonObject> ready = new ArrayDeque<>();
    private Runnable unlisten;
    private long demand;
    private long lastSeq;
    private boolean fetching;
    private boolean fetchAgain;
    private boolean ending;
    private boolean closed;

    Feed(Subscriber<? super JsonObject> subscriber) {
      this.subscriber = subscriber;
      this.lastSeq = start.getLong("seq", -1L);
    }

    void begin() {
      context.runOnContext(v -> {
        subscriber.onSubscribe(this);
        if (closed) {
          return;
        }
        if (isFinal(start)) {
          emit(start);
          return;
        }
        unlisten = events.listen(jobId, event -> context.runOnContext(x -> onEvent(event)));
        events.ready().onComplete(ar -> context.runOnContext(x -> {
          if (closed || ending) {
            return;
          }
          if (ar.succeeded()) {
            fetch(); // catch up with what changed before it listened
          } else {
            log.warn("could not follow job {}", jobId, ar.cause());
            finish();
          }
        }));
      });
    }

    @Override
    public void request(long n) {
      context.runOnContext(v -> {
        if (closed) {
          return;
        }
        if (n <= 0) {
          close();
          subscriber.onError(new IllegalArgumentException("request must be positive (rule 3.9)"));
          return;
        }
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        drain();
      });
    }

    @Override
    public void cancel() {
      context.runOnContext(v -> close());
    }

    private void onEvent(JsonObject event) {
      if (closed || ending) {
        return;
      }
      Object seq = event.getValue("seq");
      if (seq instanceof Number n && n.longValue() <= lastSeq) {
        return; // late: a newer view already left
      }
      fetch();
    }

    private void fetch() {
      if (fetching) {
        fetchAgain = true;
        return;
      }
      fetching = true;
      bus.queue(QueueActions.JOB, new JsonObject().put("jobId", jobId)).onComplete(ar -> {
        fetching = false;
        if (closed || ending) {
          return;
        }
        if (ar.succeeded()) {
          JsonObject view = ar.result();
          if (view.getLong("seq", -1L) > lastSeq) {
            emit(view);
          }
        } else {
          ApiError refusal = ApiError.from(ar.cause());
          if (refusal != null && "JOB_NOT_FOUND".equals(refusal.code())) {
            finish();
            return;
          }
          log.warn("could not read job {} for a subscriber", jobId, ar.cause());
        }
        if (fetchAgain && !ending) {
          fetchAgain = false;
          fetch();
        }
      });
    }

    private void emit(JsonObject view) {
      lastSeq = view.getLong("seq", lastSeq);
      if (ready.size() >= BUFFER) {
        ready.pollFirst();
      }
      ready.addLast(view);
      if (isFinal(view)) {
        finish();
        return;
      }
      drain();
    }

    /** No more views after those already waiting; completes once they are delivered. */
    private void finish() {
      ending = true;
      unregister();
      drain();
    }

    private void drain() {
      while (!closed && demand > 0 && !ready.isEmpty()) {
        demand--;
        subscriber.onNext(ready.pollFirst());
      }
      if (!closed && ending && ready.isEmpty()) {
        close();
        subscriber.onComplete();
      }
    }

    private void close() {
      closed = true;
      ready.clear();
      unregister();
    }

    private void unregister() {
      if (unlisten != null) {
        unlisten.run();
        unlisten = null;
      }
    }
  }
}
