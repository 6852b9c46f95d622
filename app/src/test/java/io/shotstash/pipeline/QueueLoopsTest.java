package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.EventExecutor;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.testing.TestApp;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which job-queue instance a caller asks: by default the node runs one, and every event loop asks
 * it (one batcher per node: the largest batches); with more instances, a loop that runs one asks
 * its own, and the others always the same one.
 */
@Timeout(120)
class QueueLoopsTest {
  static TestApp app;
  /** As many instances as event loops. */
  static TestApp everyLoop;

  @BeforeAll
  static void start() {
    app = TestApp.start();
    everyLoop = TestApp.start(Map.of("SHOTSTASH_PIPELINE_QUEUE_INSTANCES", Integer.toString(loops(app).size())));
  }

  @AfterAll
  static void stop() {
    app.close();
    everyLoop.close();
  }

  static List<EventExecutor> loops(TestApp app) {
    List<EventExecutor> loops = new ArrayList<>();
    ((VertxInternal) app.vertx()).nettyEventLoopGroup().forEach(loops::add);
    return loops;
  }

  /** The address each event loop of {@code app} asks, in the loops' order. */
  static List<String> askedFromEveryLoop(TestApp app) throws Exception {
    List<Future<String>> asked = new ArrayList<>();
    for (EventExecutor loop : loops(app)) {
      asked.add(loop.submit(() -> app.queueLoops().address()));
    }
    List<String> addresses = new ArrayList<>();
    for (Future<String> a : asked) {
      addresses.add(a.get());
    }
    return addresses;
  }

  @Test
  void byDefaultEveryEventLoopAsksTheNodesOneInstance() throws Exception {
    assertThat(loops(app)).hasSizeGreaterThan(1);
    assertThat(askedFromEveryLoop(app)).hasSize(loops(app).size())
        .allSatisfy(a -> assertThat(a).startsWith(Addresses.PIPELINE_QUEUE + ".loop."))
        .containsOnly(askedFromEveryLoop(app).get(0));
  }

  @Test
  void withAnInstanceOnEveryLoopEachLoopAsksItsOwn() throws Exception {
    assertThat(askedFromEveryLoop(everyLoop)).hasSize(loops(everyLoop).size()).doesNotHaveDuplicates()
        .allSatisfy(a -> assertThat(a).startsWith(Addresses.PIPELINE_QUEUE + ".loop."));
  }

  @Test
  void anyOtherThreadAsksTheSharedAddress() {
    assertThat(app.queueLoops().address()).isEqualTo(Addresses.PIPELINE_QUEUE);
  }

  @Test
  void eachLoopsAddressAnswersTheQueuesActions() throws Exception {
    // asked from the test's thread: the local addresses are node-local consumers, reachable from anywhere in the node
    for (TestApp node : List.of(app, everyLoop)) {
      for (String address : askedFromEveryLoop(node)) {
        assertThat(Requests.ask(node.vertx(), address, QueueActions.KINDS,
            new JsonObject()).await().getJsonArray("kinds")).isNotEmpty();
      }
    }
  }
}
