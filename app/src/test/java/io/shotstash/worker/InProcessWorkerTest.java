package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SHOTSTASH_IN_PROCESS_WORKERS=1: the app deploys a reference worker that talks to pipeline.queue
 * on the event bus. No bootstrap token is set, so no worker could register over HTTP: the job is done
 * without HTTP.
 */
class InProcessWorkerTest {
  static TestApp app;
  static String session;
  static Path media;

  @BeforeAll
  static void start() throws IOException {
    app = TestApp.start(Map.of("SHOTSTASH_IN_PROCESS_WORKERS", "1"));
    session = app.setupAndLogin();
    media = Files.createTempDirectory("worker-in-process-");
  }

  @AfterAll
  static void stop() throws IOException {
    if (app != null) { // null when the start failed (e.g. no ffmpeg): that failure is the one to report
      app.close();
    }
    WorkerLoopTest.deleteTree(media);
  }

  @Test
  void theInProcessWorkerMakesTheProxyWithoutHttp() throws Exception {
    assertThat(app.config().pipeline().bootstrapToken()).isNull();
    HttpResponse<Buffer> disabled = app.client().post("/api/v1/pipeline/workers/register")
        .sendJsonObject(new JsonObject()).await();
    assertThat(disabled.statusCode()).isEqualTo(503);

    String fileId = AppSteps.upload(app, session, TestVideos.video(media, "clip.mp4", 960, 540, true, 2), "clip.mp4");
    JsonObject job = AppSteps.enqueueProxy(app, fileId);
    JsonObject done = AppSteps.awaitFinal(app.vertx(), job.getString("id"), Duration.ofSeconds(120));
    assertThat(done.getString("status")).as(done.encode()).isEqualTo("done");
    assertThat(done.getInteger("progress")).isEqualTo(100);

    JsonArray workers =
        Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.WORKERS, new JsonObject()).await()
            .getJsonArray("workers");
    assertThat(workers).hasSize(1);
    assertThat(workers.getJsonObject(0).getString("name")).isEqualTo("in-process-1");

    JsonObject probe = TestVideos.probe(AppSteps.downloadVersion(app, session, done.getString("versionId"),
        media.resolve("proxy.mp4")));
    TestVideos.assertProxy(probe, 960, 540); // 540 high: never upscaled

    try (var left = Files.list(app.dataDir().resolve("worker-tmp").resolve(Scratch.folderName("in-process-1")))) {
      assertThat(left).as("scratch files are deleted").isEmpty();
    }
  }
}
