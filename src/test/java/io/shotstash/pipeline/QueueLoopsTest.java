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
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The node runs a job-queue instance on every event loop, so whichever loop an HTTP verticle got,
 * its worker calls are answered by the instance on that loop (and that instance's connections).
 */
@Timeout(120)
class QueueLoopsTest {
  static TestApp app;

  @BeforeAll
  static void start() {
    app = TestApp.start();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void everyEventLoopAsksItsOwnInstance() throws Exception {
    List<Future<String>> asked = new ArrayList<>();
    for (EventExecutor loop : ((VertxInternal) app.vertx()).nettyEventLoopGroup()) {
      asked.add(loop.submit(() -> app.queueLoops().address()));
    }
    List<String> addresses = new ArrayList<>();
    for (Future<String> a : asked) {
      addresses.add(a.get());
    }

    assertThat(addresses).hasSizeGreaterThan(1).doesNotHaveDuplicates()
        .allSatisfy(a -> assertThat(a).startsWith(Addresses.PIPELINE_QUEUE + ".loop."));
  }

  @Test
  void anyOtherThreadAsksTheSharedAddress() {
    assertThat(app.queueLoops().address()).isEqualTo(Addresses.PIPELINE_QUEUE);
  }

  @Test
  void eachLoopsAddressAnswersTheQueuesActions() throws Exception {
    // asked from the test's thread: the local addresses are node-local consumers, reachable from anywhere in the node
    for (EventExecutor loop : ((VertxInternal) app.vertx()).nettyEventLoopGroup()) {
      String address = loop.submit(() -> app.queueLoops().address()).get();
      assertThat(Requests.ask(app.vertx(), address, QueueActions.KINDS,
          new JsonObject()).await().getJsonArray("kinds")).isNotEmpty();
    }
  }
}
