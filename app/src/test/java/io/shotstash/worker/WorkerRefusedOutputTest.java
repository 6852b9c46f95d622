package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.testing.WithSignedInApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reference worker's client when the real app refuses its output (here over the 1 MB limit,
 * refused from {@code Content-Length} before the body goes): the worker hears the refusal, and its
 * next upload goes out on a connection of its own, not on the refused one, which the app reads as
 * the rest of that body until it closes it.
 */
class WorkerRefusedOutputTest extends WithSignedInApp {
  static final String BOOTSTRAP = "refused-output-bootstrap-token-0123456789";
  static Path dir;

  @BeforeAll
  static void start() throws IOException {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP, "SHOTSTASH_PIPELINE_MAX_OUTPUT_MB", "1"));
    dir = Files.createTempDirectory("refused-output-");
  }

  @AfterAll
  static void clean() throws IOException {
    WorkerLoopTest.deleteTree(dir);
  }

  @Test
  void aRefusedOutputLeavesTheNextUploadAWorkingConnection() throws Exception {
    Path small = Files.write(dir.resolve("small.mp4"), new byte[1000]);
    Path large = Files.write(dir.resolve("large.mp4"), new byte[2 << 20]);
    AppSteps.enqueueProxy(app, AppSteps.upload(app, admin, small, "input.mp4"));
    HttpWorkerClient client = new HttpWorkerClient(app.vertx(), "http://127.0.0.1:" + app.port(), BOOTSTRAP);
    try {
      client.register(new WorkerManifest("refused-output", "1.0.0", List.of(WorkerLoop.KIND), 1)).await();
      Job job = client.next().await();
      assertThat(job).as("the queued job").isNotNull();
      for (int i = 0; i < 2; i++) {
        Throwable refused = catchThrowable(() -> client.uploadOutput(job, large, "video/mp4", "mp4").await());
        assertThat(refused).isInstanceOf(WorkerCallException.class);
        assertThat(((WorkerCallException) refused).code()).as(refused.toString()).isEqualTo("OUTPUT_TOO_LARGE");
      }
      String versionId = client.uploadOutput(job, small, "video/mp4", "mp4").await();
      assertThat(versionId).isNotBlank();
    } finally {
      client.close().await();
    }
  }
}
