package io.shotstash.http.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The node's consumer of job events exists only while a subscription listens. */
class JobEventsTest {
  Vertx vertx;
  JobEvents events;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    events = new JobEvents(vertx);
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  /** Whether anything consumes job events on this node: a request finds no handler, or times out unanswered. */
  boolean consumed() {
    try {
      vertx.eventBus().request(Addresses.PIPELINE_JOB_UPDATED, new JsonObject().put("id", "probe"),
          new DeliveryOptions().setSendTimeout(200)).await();
      return true;
    } catch (ReplyException e) {
      return e.failureType() != ReplyFailure.NO_HANDLERS;
    }
  }

  void publish(String id) {
    vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED, new JsonObject().put("id", id));
  }

  @Test
  void nobodyListeningNobodyConsumes() {
    assertThat(consumed()).isFalse();
  }

  /** The next event a listener got, or null after a second. */
  static String next(LinkedBlockingQueue<String> got) throws InterruptedException {
    return got.poll(1, TimeUnit.SECONDS);
  }

  @Test
  void eventsReachListenersOfTheirJobWhileTheyListen() throws InterruptedException {
    LinkedBlockingQueue<String> a = new LinkedBlockingQueue<>();
    LinkedBlockingQueue<String> b = new LinkedBlockingQueue<>();
    Runnable stopA = events.listen("JOB-A", e -> a.add(e.getString("id")));
    Runnable stopB = events.listen("job-b", e -> b.add(e.getString("id")));
    events.ready().await();
    assertThat(consumed()).isTrue();

    publish("job-a");
    publish("job-b");
    assertThat(next(a)).isEqualTo("job-a");
    assertThat(next(b)).isEqualTo("job-b");

    stopA.run();
    stopA.run(); // a second run changes nothing
    publish("job-a");
    publish("job-b");
    assertThat(next(b)).isEqualTo("job-b"); // one consumer delivers in order: a's would have come first
    assertThat(a).isEmpty();
    assertThat(consumed()).isTrue(); // b still listens

    stopB.run();
    boolean gone = false;
    for (int i = 0; i < 50 && !gone; i++) { // unregistering completes asynchronously
      gone = !consumed();
    }
    assertThat(gone).isTrue();
  }

  @Test
  void listeningAgainAfterEveryoneLeftRegistersAgain() throws InterruptedException {
    events.listen("job-a", e -> {}).run();
    LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
    events.listen("job-a", e -> got.add(e.getString("id")));
    events.ready().await();
    publish("job-a");
    assertThat(next(got)).isEqualTo("job-a");
  }
}
