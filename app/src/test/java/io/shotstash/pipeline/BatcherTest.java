package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.ApiError;
import io.shotstash.pipeline.Batcher.Answered;
import io.shotstash.pipeline.Batcher.Outcome;
import io.shotstash.pipeline.Batcher.Refused;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The batching rule alone: the statement is a promise the test completes by hand. */
class BatcherTest {
  final List<List<String>> sent = new ArrayList<>();
  final List<Promise<List<Outcome<String>>>> inFlight = new ArrayList<>();
  final Batcher<String, String> batcher = new Batcher<>("test", 3, calls -> {
    sent.add(calls);
    Promise<List<Outcome<String>>> p = Promise.promise();
    inFlight.add(p);
    return p.future();
  });

  static List<Outcome<String>> echo(List<String> calls) {
    return calls.stream().<Outcome<String>>map(c -> c.startsWith("bad")
        ? new Refused<>(ApiError.of(409, "CLAIM_STALE", "stale")) : new Answered<>(c.toUpperCase())).toList();
  }

  @Test
  void aLoneCallGoesOutAtOnceAlone() {
    Future<String> a = batcher.submit("a");
    assertThat(sent).containsExactly(List.of("a"));
    inFlight.get(0).complete(echo(sent.get(0)));
    assertThat(a.result()).isEqualTo("A");
    assertThat(batcher.batches()).isEqualTo(1);
  }

  @Test
  void callsArrivingWhileABatchIsInFlightGoOutTogetherWhenItReturnsAtMostMaxAtATime() {
    batcher.submit("a");
    List<Future<String>> later = new ArrayList<>();
    for (String c : List.of("b", "c", "d", "e")) {
      later.add(batcher.submit(c));
    }
    assertThat(sent).hasSize(1);
    assertThat(batcher.waiting()).isEqualTo(4);
    inFlight.get(0).complete(echo(sent.get(0)));
    assertThat(sent).containsExactly(List.of("a"), List.of("b", "c", "d"));
    inFlight.get(1).complete(echo(sent.get(1)));
    assertThat(sent.get(2)).containsExactly("e");
    inFlight.get(2).complete(echo(sent.get(2)));
    assertThat(later).allMatch(Future::succeeded);
    assertThat(batcher.calls()).isEqualTo(5);
    assertThat(batcher.batches()).isEqualTo(3);
  }

  @Test
  void eachCallerHearsItsOwnOutcome() {
    batcher.submit("a");
    Future<String> good = batcher.submit("b");
    Future<String> bad = batcher.submit("bad-c");
    inFlight.get(0).complete(echo(sent.get(0)));
    inFlight.get(1).complete(echo(sent.get(1)));
    assertThat(good.result()).isEqualTo("B");
    assertThat(ApiError.from(bad.cause()).code()).isEqualTo("CLAIM_STALE");
  }

  @Test
  void aFailedBatchFailsEachOfItsCallersRetryablyAndTheNextBatchGoesOut() {
    batcher.submit("a");
    Future<String> b = batcher.submit("b");
    Future<String> c = batcher.submit("c");
    inFlight.get(0).fail(new IllegalStateException("boom"));
    assertThat(sent).hasSize(2);
    inFlight.get(1).complete(echo(sent.get(1)));
    assertThat(b.result()).isEqualTo("B");
    assertThat(c.result()).isEqualTo("C");

    Future<String> d = batcher.submit("d");
    inFlight.get(2).fail(new IllegalStateException("boom"));
    ApiError e = ApiError.from(d.cause());
    assertThat(e.status()).isEqualTo(503);
    assertThat(e.retryAfterSeconds()).isEqualTo(5);
  }

  @Test
  void aStatementThatAnswersTheWrongNumberOfOutcomesFailsTheBatch() {
    Future<String> a = batcher.submit("a");
    inFlight.get(0).complete(List.of());
    assertThat(ApiError.from(a.cause()).status()).isEqualTo(503);
  }

  @Test
  void aStatementThatThrowsFailsTheBatch() {
    Batcher<String, String> broken = new Batcher<>("broken", 2, calls -> {
      throw new IllegalStateException("no statement");
    });
    assertThat(ApiError.from(broken.submit("a").cause()).status()).isEqualTo(503);
    assertThat(broken.waiting()).isZero();
  }

  @Test
  void twoCallsWithTheSameKeyNeverShareABatchTheLaterOneWaitsForTheNext() {
    Batcher<String, String> byJob = new Batcher<>("keyed", 10, call -> call.substring(0, 1), calls -> {
      sent.add(calls);
      Promise<List<Outcome<String>>> p = Promise.promise();
      inFlight.add(p);
      return p.future();
    });
    byJob.submit("a0");
    for (String c : List.of("a1", "b1", "a2", "c1")) {
      byJob.submit(c);
    }
    inFlight.get(0).complete(echo(sent.get(0)));
    assertThat(sent.get(1)).containsExactly("a1", "b1", "c1");
    inFlight.get(1).complete(echo(sent.get(1)));
    assertThat(sent.get(2)).containsExactly("a2");
  }
}
