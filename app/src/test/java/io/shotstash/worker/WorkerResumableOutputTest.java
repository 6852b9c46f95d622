package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.CuttableProxy;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reference worker sends its output as a resumable upload (WORKER_RESUMABLE_OUTPUT_MB, here
 * every output) through a proxy that drops the network in the middle of the output's PATCH: it asks
 * where the app stands, sends the rest to the same upload, and the job completes on its first
 * attempt with the whole proxy as its version.
 */
class WorkerResumableOutputTest extends WithHttpWorker {
  static final String BOOTSTRAP = "resumable-worker-bootstrap-token-0123456789";

  static CuttableProxy proxy;

  @BeforeAll
  static void start() throws IOException {
    startWithMedia(BOOTSTRAP, "worker-resumable-");
    proxy = new CuttableProxy(app.port());
    String url = "http://127.0.0.1:" + proxy.port();
    deployWorker(new WorkerSettings(url, BOOTSTRAP, "resumable-proxy", Duration.ofMillis(200),
        media.resolve("scratch"), Duration.ofSeconds(120), 0, Duration.ofSeconds(1), 1));
  }

  @AfterAll
  static void stop() {
    undeployWorker(); // before the proxy it talks through
    proxy.close();
  }

  @Test
  void aNetworkErrorInTheMiddleOfTheOutputIsResumedAndTheJobCompletes() throws Exception {
    // the network drops 8 KiB into the output's first PATCH (its head is some 400 bytes)
    proxy.cutInside("PATCH ", 8 * 1024);
    Path input = TestVideos.video(media, "cut.mp4", 1280, 720, true, 2);
    String fileId = AppSteps.upload(app, admin, input, "cut.mp4");
    JsonObject job = AppSteps.enqueueProxy(app, fileId);
    JsonObject done = AppSteps.awaitFinal(app.vertx(), job.getString("id"), Duration.ofSeconds(120));

    assertThat(done.getString("status")).as("job %s: %s", done.getString("id"), done.getString("error"))
        .isEqualTo("done");
    assertThat(proxy.trips()).as("the network dropped inside the PATCH").isEqualTo(1);
    assertThat(done.getInteger("attempts")).as("the claim held through the drop").isEqualTo(1);
    String jobId = job.getString("id");
    assertThat(app.db().number("SELECT count(*) FROM tus_output_uploads WHERE job_id = '" + jobId + "'"))
        .as("one upload, resumed rather than started over").isEqualTo(1);
    String versionId = done.getString("versionId");
    long length = app.db().number("SELECT u.upload_length FROM tus_uploads u JOIN tus_output_uploads o "
        + "ON o.upload_id = u.id WHERE o.job_id = '" + jobId + "'");
    assertThat(length).as("the output is larger than where the network dropped").isGreaterThan(8 * 1024);
    assertThat(app.db().number("SELECT size FROM processed_versions WHERE id = '" + versionId + "'"))
        .isEqualTo(length);
    Path proxied = AppSteps.downloadVersion(app, admin, versionId, media.resolve("cut-proxy.mp4"));
    assertThat(Files.size(proxied)).isEqualTo(length);
    TestVideos.assertProxy(TestVideos.probe(proxied), 1280, 720);
  }
}
