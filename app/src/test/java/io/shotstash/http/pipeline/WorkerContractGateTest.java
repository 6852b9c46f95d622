package io.shotstash.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.ContractWorker.Answer;
import io.shotstash.testing.TestApp;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The gates before the worker contract: an app that is not set up yet answers every worker route
 * 503 SETUP_REQUIRED in the contract's shape; an app without WORKER_BOOTSTRAP_TOKEN answers
 * registration 503 PIPELINE_DISABLED. One app, started without the bootstrap token; the tests run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkerContractGateTest {
  static final String SOME_BOOTSTRAP = "some-bootstrap-token-0123456789-abcdef";

  static TestApp app;

  @BeforeAll
  static void start() {
    app = TestApp.start();
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  static void assertContractRefusal(String route, Answer a, int status, String code) {
    assertThat(a.status()).as("%s answered %s", route, a).isEqualTo(status);
    assertThat(a.header("X-Shotstash-Pipeline")).as(route).isEqualTo("1");
    assertThat(a.header("Cache-Control")).as(route).isEqualTo("no-store");
    JsonObject body = a.json();
    assertThat(body.fieldNames()).as("%s: {code, message}, not the API envelope", route)
        .containsExactlyInAnyOrder("code", "message");
    assertThat(body.getString("code")).as(route).isEqualTo(code);
    assertThat(body.getString("message")).isNotBlank();
  }

  /** All nine routes, with tokens that would otherwise be checked (and refused) later. */
  static Map<String, Answer> everyRoute() {
    JsonObject manifest = ContractWorker.manifest("gate-worker", "acme/gate");
    ContractWorker w = new ContractWorker(app, SOME_BOOTSTRAP, manifest).token("ssw_" + "A".repeat(43));
    String job = UUID.randomUUID().toString();
    String claim = "claim-token";
    Map<String, Answer> answers = new LinkedHashMap<>();
    answers.put("register", w.register());
    answers.put("heartbeat", w.heartbeat());
    answers.put("next", w.next());
    answers.putAll(WorkerContractTest.everyJobCall(w, job, claim));
    return answers;
  }

  @Test
  @Order(1)
  void beforeSetupEveryWorkerRouteAnswersSetupRequiredInTheContractsShape() {
    Map<String, Answer> answers = everyRoute();
    assertThat(answers).hasSize(9);
    answers.forEach((route, a) -> assertContractRefusal(route, a, 503, "SETUP_REQUIRED"));
  }

  @Test
  @Order(2)
  void withoutABootstrapTokenRegistrationIsDisabled() {
    app.setupAndLogin();
    JsonObject manifest = ContractWorker.manifest("disabled-worker", "acme/gate");
    assertContractRefusal("register", new ContractWorker(app, SOME_BOOTSTRAP, manifest).register(), 503,
        "PIPELINE_DISABLED");
    assertContractRefusal("register without a token", new ContractWorker(app, null, manifest).register(), 503,
        "PIPELINE_DISABLED");
    // PIPELINE_DISABLED is decided before the manifest is read
    assertContractRefusal("register with a bad manifest",
        new ContractWorker(app, SOME_BOOTSTRAP, manifest).register(new JsonObject().put("manifest", 1)), 503,
        "PIPELINE_DISABLED");
  }

  @Test
  @Order(3)
  void afterSetupTheOtherRoutesCheckTheWorkerToken() {
    Map<String, Answer> answers = everyRoute();
    answers.remove("register");
    assertThat(answers).hasSize(8);
    answers.forEach((route, a) -> assertContractRefusal(route, a, 401, "UNAUTHENTICATED"));
  }
}
