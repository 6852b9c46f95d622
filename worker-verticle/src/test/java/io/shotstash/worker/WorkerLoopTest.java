package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.worker.FakeApp.Answer;
import io.shotstash.worker.FakeApp.Call;
import io.shotstash.worker.FakeApp.FakeJob;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker loop against a fake app on loopback (a real HTTP server in this test): registration
 * and its backoff, dropping a job, retried deliveries, failures, stopping, and that no token or claim
 * is ever logged. Intervals are short through {@link WorkerSettings}; nothing sleeps.
 */
class WorkerLoopTest {
  private static final long WAIT_SECONDS = 60;

  static Vertx vertx;
  static Path media;
  static Buffer video;
  static Buffer audioOnly;

  FakeApp fake;
  LogCapture logs;
  Path tmp;
  String deployment;
  WorkerLoop loop;

  @BeforeAll
  static void makeMedia() throws IOException {
    vertx = Vertx.vertx();
    media = Files.createTempDirectory("worker-media-");
    video = Buffer.buffer(Files.readAllBytes(TestVideos.video(media, "small.mp4", 320, 240, true, 2)));
    audioOnly = Buffer.buffer(Files.readAllBytes(TestVideos.audioOnly(media, "tone.m4a")));
  }

  @AfterAll
  static void closeVertx() throws IOException {
    vertx.close().await();
    deleteTree(media);
  }

  @BeforeEach
  void startFake() throws IOException {
    fake = FakeApp.start(vertx);
    logs = LogCapture.start();
    tmp = Files.createTempDirectory("worker-scratch-");
  }

  @AfterEach
  void stop() throws IOException {
    if (deployment != null) {
      vertx.undeploy(deployment).await();
      deployment = null;
    }
    fake.close();
    try {
      logs.assertNoneContains(fake.secrets());
    } finally {
      logs.close();
      deleteTree(tmp);
    }
  }

  private WorkerLoop deploy(String name, Duration idle) {
    WorkerSettings settings =
        new WorkerSettings(fake.url(), FakeApp.BOOTSTRAP, name, Duration.ofMillis(100), tmp, idle, 0,
            Duration.ofMillis(200));
    loop = new WorkerLoop(settings, new HttpWorkerClient(vertx, fake.url(), FakeApp.BOOTSTRAP));
    deployment = vertx.deployVerticle(loop).await();
    return loop;
  }

  private WorkerLoop deploy(String name) {
    return deploy(name, Duration.ofSeconds(30));
  }

  private static Call await(CompletableFuture<Call> f) throws Exception {
    return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** The next jobs/next after {@code after}: the loop finished with the job before it (scratch deleted, state reset). */
  private Call nextAfter(Call after) throws Exception {
    return await(fake.when("next", c -> c.seq() > after.seq()));
  }

  private List<Call> callsAbout(FakeJob job, String route) {
    return fake.calls(route).stream().filter(c -> job.id().equals(c.jobId())).toList();
  }

  /** The worker dropped the job: no output, complete, fail or release was sent about it. */
  private void assertNothingSentAbout(FakeJob job) {
    assertThat(callsAbout(job, "output")).isEmpty();
    assertThat(callsAbout(job, "complete")).isEmpty();
    assertThat(callsAbout(job, "fail")).isEmpty();
    assertThat(callsAbout(job, "release")).isEmpty();
  }

  private Path scratchOf(String name) {
    return tmp.resolve(Scratch.folderName(name));
  }

  private void assertScratchEmpty(String name) throws IOException {
    try (Stream<Path> left = Files.list(scratchOf(name))) {
      assertThat(left).as("scratch files are deleted").isEmpty();
    }
  }

  // ---- registration ----

  @Test
  void registersAgainAfter503AndThenWorks() throws Exception {
    fake.script("register", Answer.refusal(503, "SETUP_REQUIRED"));
    deploy("w-503");
    Call next = await(fake.when("next", c -> true));
    List<Call> registers = fake.calls("register");
    assertThat(registers).hasSize(2);
    assertThat(registers).allSatisfy(r -> {
      assertThat(r.header("X-Worker-Bootstrap-Token")).isEqualTo(FakeApp.BOOTSTRAP);
      assertThat(r.json().getJsonObject("manifest"))
          .isEqualTo(new JsonObject().put("name", "w-503").put("version", "1.0.0")
              .put("kinds", new io.vertx.core.json.JsonArray().add("shotstash/proxy-720p")).put("contract", 1));
    });
    assertThat(fake.tokens()).hasSize(1);
    assertThat(next.header("X-Worker-Token")).isEqualTo(fake.tokens().get(0));
  }

  @Test
  void registersAgainUnderTheSameNameAfter401() throws Exception {
    fake.script("next", Answer.refusal(401, "UNAUTHENTICATED"));
    deploy("w-401");
    Call second = await(fake.when("next", c -> c.n() == 2));
    List<Call> registers = fake.calls("register");
    assertThat(registers).hasSize(2);
    assertThat(registers).extracting(r -> r.json().getJsonObject("manifest").getString("name")).containsOnly("w-401");
    assertThat(fake.tokens()).hasSize(2);
    assertThat(fake.calls("next").get(0).header("X-Worker-Token")).isEqualTo(fake.tokens().get(0));
    assertThat(second.header("X-Worker-Token")).isEqualTo(fake.tokens().get(1));
  }

  // ---- a job all the way, with retried deliveries ----

  @Test
  void completesAJobRetryingTheOutputAfter429AndCompleteAfter503() throws Exception {
    FakeJob job = fake.queue(video, "video/mp4");
    fake.script("output", Answer.refusal(429, "RATE_LIMITED", Map.of("Retry-After", "1")));
    fake.script("complete", Answer.refusal(503, "STORAGE_UNAVAILABLE"));
    WorkerLoop w = deploy("w-done");
    int healthPort = freePort();
    HealthServer.start(vertx, "127.0.0.1", healthPort, w::status).await();

    Call complete = await(fake.when("complete", c -> c.n() == 2));
    nextAfter(complete);

    List<Call> outputs = callsAbout(job, "output");
    assertThat(outputs).hasSize(2);
    for (Call out : outputs) {
      assertThat(out.header("Content-Type")).isEqualTo("video/mp4");
      assertThat(out.header("X-Output-Ext")).isEqualTo("mp4");
      assertThat(out.header("Content-Length")).isEqualTo(Integer.toString(out.body().length()));
      assertThat(out.header("X-Claim-Token")).isEqualTo(job.claim());
      assertThat(out.body().length()).isPositive();
    }
    Path proxy = tmp.resolve("proxy.mp4");
    Files.write(proxy, outputs.get(1).body().getBytes());
    JsonObject probe = TestVideos.probe(proxy);
    TestVideos.assertProxy(probe, 320, 240);

    assertThat(callsAbout(job, "complete")).hasSize(2);
    List<Integer> progress = callsAbout(job, "progress").stream().map(c -> c.json().getInteger("progress")).toList();
    assertThat(progress).first().isEqualTo(0);
    assertThat(progress).last().isEqualTo(100);
    assertThat(progress).isSorted().doesNotHaveDuplicates();
    assertThat(callsAbout(job, "input")).hasSize(1);
    assertThat(callsAbout(job, "fail")).isEmpty();
    assertThat(callsAbout(job, "release")).isEmpty();
    assertScratchEmpty("w-done");

    JsonObject health =
        WebClient.create(vertx).get(healthPort, "127.0.0.1", "/healthz").send().await().bodyAsJsonObject();
    assertThat(health.getBoolean("registered")).isTrue();
    assertThat(health.getLong("jobsDone")).isEqualTo(1);
    assertThat(health.getString("currentJob")).isNull();
    assertThat(health.getString("phase")).isIn("polling", "registering", "backing-off");
  }

  // ---- dropping a job ----

  @Test
  void aJobListedInLostJobIdsIsDroppedWithoutFailOrComplete() throws Exception {
    fake.heartbeatSeconds = 1;
    FakeJob job = fake.queue(video, "video/mp4");
    fake.script("input", Answer.HOLD);
    fake.always("heartbeat", c -> c.json().getJsonArray("activeJobIds").contains(job.id())
        ? Answer
            .ok(new JsonObject().put("contract", 1).put("lostJobIds", new io.vertx.core.json.JsonArray().add(job.id())))
        : null);
    deploy("w-lost");
    Call lost = await(fake.when("heartbeat", c -> c.json().getJsonArray("activeJobIds").contains(job.id())));
    nextAfter(lost);
    assertNothingSentAbout(job);
    assertScratchEmpty("w-lost");
  }

  @Test
  void jobTerminalOnProgressStopsTheWork() throws Exception {
    FakeJob job = fake.queue(video, "video/mp4");
    fake.always("progress", c -> Answer.refusal(409, "JOB_TERMINAL"));
    deploy("w-terminal");
    Call progress = await(fake.when("progress", c -> job.id().equals(c.jobId())));
    nextAfter(progress);
    assertNothingSentAbout(job);
    assertScratchEmpty("w-terminal");
  }

  // ---- the worker's own failures ----

  @Test
  void unreadableInputAndNoVideoFailForGood() throws Exception {
    FakeJob garbage = fake.queue(Buffer.buffer("this is not a video at all, just words ".repeat(100)), "video/mp4");
    FakeJob tone = fake.queue(audioOnly, "video/mp4");
    deploy("w-permanent");
    Call second = await(fake.when("fail", c -> c.n() == 2));
    nextAfter(second);

    Call failGarbage = callsAbout(garbage, "fail").get(0);
    assertThat(failGarbage.json().getBoolean("retryable")).isFalse();
    assertThat(failGarbage.json().getString("error")).startsWith("The input is not a readable media file");
    assertThat(failGarbage.json().getString("error")).as("no path of the worker's machine")
        .doesNotContain(tmp.toString());
    Call failTone = callsAbout(tone, "fail").get(0);
    assertThat(failTone.json().getBoolean("retryable")).isFalse();
    assertThat(failTone.json().getString("error")).isEqualTo("The input has no video stream");
    assertThat(fake.calls("complete")).isEmpty();
    assertThat(fake.calls("output")).isEmpty();
    assertScratchEmpty("w-permanent");
  }

  @Test
  void anIdleJobFailsRetryable() throws Exception {
    FakeJob job = fake.queue(video, "video/mp4");
    fake.script("input", Answer.HOLD); // the input never arrives
    deploy("w-idle", Duration.ofSeconds(1));
    Call fail = await(fake.when("fail", c -> job.id().equals(c.jobId())));
    nextAfter(fail);
    assertThat(fail.json().getBoolean("retryable")).isTrue();
    assertThat(fail.json().getString("error")).startsWith("No progress for 1 s");
    assertThat(fail.header("X-Claim-Token")).isEqualTo(job.claim());
    assertThat(callsAbout(job, "complete")).isEmpty();
    assertScratchEmpty("w-idle");
  }

  @Test
  void aRefusedOutputFailsRetryable() throws Exception {
    FakeJob job = fake.queue(video, "video/mp4");
    fake.script("output", Answer.refusal(400, "INVALID_OUTPUT"));
    deploy("w-refused");
    Call fail = await(fake.when("fail", c -> job.id().equals(c.jobId())));
    nextAfter(fail);
    assertThat(fail.json().getBoolean("retryable")).isTrue();
    assertThat(fail.json().getString("error")).contains("INVALID_OUTPUT");
    assertThat(callsAbout(job, "output")).hasSize(1);
    assertThat(callsAbout(job, "complete")).isEmpty();
  }

  // ---- stopping (SIGTERM) ----

  @Test
  void stoppingReleasesTheCurrentJobAndClaimsNoMore() throws Exception {
    FakeJob job = fake.queue(video, "video/mp4");
    FakeJob waiting = fake.queue(video, "video/mp4");
    fake.script("input", Answer.HOLD);
    deploy("w-stop");
    await(fake.when("input", c -> job.id().equals(c.jobId())));
    vertx.undeploy(deployment).await();
    deployment = null;

    List<Call> release = callsAbout(job, "release");
    assertThat(release).hasSize(1);
    assertThat(release.get(0).header("X-Claim-Token")).isEqualTo(job.claim());
    assertThat(callsAbout(job, "fail")).isEmpty();
    assertThat(callsAbout(job, "complete")).isEmpty();
    assertThat(fake.calls("next")).hasSize(1); // the second job was never claimed
    assertThat(callsAbout(waiting, "input")).isEmpty();
    assertThat(loop.status().phase()).isEqualTo("stopped");
    assertScratchEmpty("w-stop");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
