package io.shotstash.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.ContractWorker.Answer;
import io.shotstash.testing.TestApp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The per-IP limits of the worker contract (PIPELINE.md → Rate limits): 60 registrations an hour
 * and 6000 worker calls a minute per client IP. One app of its own (the limits are per app);
 * the tests run in order and share the workers registered by the first.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkerRateLimitTest {
  static final String BOOT = "worker-rate-limit-bootstrap-token-012345";

  static TestApp app;
  static final List<ContractWorker> workers = new ArrayList<>();

  @BeforeAll
  static void start() {
    app = TestApp.start(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOT));
    app.setupAndLogin();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  static void assertRateLimited(Answer a, int maxRetryAfter) {
    assertThat(a.status()).as(a.toString()).isEqualTo(429);
    assertThat(a.header("X-Shotstash-Pipeline")).isEqualTo("1");
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.json().fieldNames()).containsExactlyInAnyOrder("code", "message");
    assertThat(a.code()).isEqualTo("RATE_LIMITED");
    assertThat(a.header("Retry-After")).isNotNull();
    assertThat(Integer.parseInt(a.header("Retry-After"))).isBetween(1, maxRetryAfter);
  }

  @Test
  @Order(1)
  void sixtyRegistrationsAnHourPerIp() {
    for (int i = 0; i < 60; i++) {
      ContractWorker w = new ContractWorker(app, BOOT, ContractWorker.manifest("ip-" + i, "test/ip-" + i));
      Answer a = w.register();
      assertThat(a.status()).as("registration %d answered %s", i + 1, a).isEqualTo(201);
      workers.add(w);
    }
    assertRateLimited(new ContractWorker(app, BOOT, ContractWorker.manifest("ip-61", "test/ip")).register(), 3600);
    // registering a known name again is a registration too
    assertRateLimited(new ContractWorker(app, BOOT, ContractWorker.manifest("ip-0", "test/ip-0")).register(), 3600);
    // the limit is on registrations only: registered workers go on working
    assertThat(workers.get(0).next().status()).isEqualTo(204);
  }

  @Test
  @Order(2)
  void sixThousandWorkerCallsAMinutePerIp() {
    assertThat(workers).hasSize(60);
    // so far: 62 registrations and one call went through the per-IP window
    int ok = 0;
    Answer refused = null;
    for (int i = 0; i < 6000 && refused == null; i++) {
      Answer a = workers.get(i % workers.size()).next();
      if (a.status() == 204) {
        ok++;
      } else {
        refused = a;
      }
    }
    assertThat(refused).as("no call was refused").isNotNull();
    assertRateLimited(refused, 60);
    // no worker came near its own 600: this is the per-IP limit
    assertThat(ok / workers.size()).isLessThan(600);
    assertThat(ok + 63).isBetween(5998, 6000);
    // it holds for every worker of this IP, and for registrations
    assertRateLimited(workers.get(59).next(), 60);
    assertRateLimited(workers.get(1).heartbeat(), 60);
    assertRateLimited(new ContractWorker(app, BOOT, ContractWorker.manifest("ip-late", "test/ip")).register(), 3600);
  }
}
