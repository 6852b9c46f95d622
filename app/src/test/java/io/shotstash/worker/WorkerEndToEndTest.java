package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reference worker against the real app over HTTP: videos made here by ffmpeg are uploaded,
 * queued as {@code shotstash/proxy-720p}, processed by a {@link WorkerLoop} with
 * {@link HttpWorkerClient}, and the processed versions are checked with ffprobe.
 */
class WorkerEndToEndTest extends WithHttpWorker {
  static final String BOOTSTRAP = "end-to-end-bootstrap-token-0123456789";

  @BeforeAll
  static void start() throws IOException {
    startWithMedia(BOOTSTRAP, "worker-e2e-");
    deployWorker(new WorkerSettings("http://127.0.0.1:" + app.port(), BOOTSTRAP, "e2e-proxy", Duration.ofMillis(200),
        media.resolve("scratch"), Duration.ofSeconds(120), 0, Duration.ofSeconds(1)));
  }

  @Test
  void aFullHdVideoWithAudioBecomesA720pH264AacProxy() throws Exception {
    Path input = TestVideos.video(media, "hd.mp4", 1920, 1080, true, 2);
    JsonObject job = process(input, "hd.mp4");
    assertThat(job.getInteger("attempts")).isEqualTo(1);
    assertThat(job.getInteger("progress")).isEqualTo(100);

    JsonObject probe = TestVideos.probe(downloadVersion(job.getString("versionId"), "hd-proxy.mp4"));
    TestVideos.assertProxy(probe, 1280, 720);
    assertThat(probe.getJsonObject("format").getString("format_name")).contains("mp4");
  }

  @Test
  void anOddSizedVideoWithoutAudioBecomesAnEvenSizedProxyNoLarger() throws Exception {
    Path input = TestVideos.video(media, "odd.mp4", 641, 361, false, 2);
    JsonObject job = process(input, "odd.mp4");

    JsonObject probe = TestVideos.probe(downloadVersion(job.getString("versionId"), "odd-proxy.mp4"));
    JsonObject video = TestVideos.stream(probe, "video");
    assertThat(video.getString("codec_name")).isEqualTo("h264");
    assertThat(video.getString("pix_fmt")).isEqualTo("yuv420p");
    int w = video.getInteger("width");
    int h = video.getInteger("height");
    assertThat(w % 2).isZero();
    assertThat(h % 2).isZero();
    assertThat(w).isLessThanOrEqualTo(641);
    assertThat(h).isLessThanOrEqualTo(361);
    assertThat(List.of(w, h)).containsExactly(640, 360);
    assertThat(TestVideos.stream(probe, "audio")).isNull();
  }

  /** Upload, enqueue, wait until done; answers the job view. */
  private JsonObject process(Path input, String name) throws Exception {
    String fileId = AppSteps.upload(app, admin, input, name);
    JsonObject job = AppSteps.enqueueProxy(app, fileId);
    JsonObject done = AppSteps.awaitFinal(app.vertx(), job.getString("id"), Duration.ofSeconds(120));
    assertThat(done.getString("status")).as("job %s: %s", done.getString("id"), done.getString("error"))
        .isEqualTo("done");
    assertThat(done.getString("versionId")).isNotNull();
    return done;
  }

  private Path downloadVersion(String versionId, String name) throws IOException {
    return AppSteps.downloadVersion(app, admin, versionId, media.resolve(name));
  }
}
