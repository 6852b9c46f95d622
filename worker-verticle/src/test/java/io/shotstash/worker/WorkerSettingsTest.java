package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerSettingsTest {
  private static final String TOKEN = "a-bootstrap-token-of-32-characters-at-least";

  @Test
  void defaults() {
    WorkerSettings s = WorkerSettings.fromEnvironment(Map.of("WORKER_BOOTSTRAP_TOKEN", TOKEN, "HOSTNAME", "Box_7"));
    assertThat(s.url()).isEqualTo("http://localhost:3005");
    assertThat(s.bootstrapToken()).isEqualTo(TOKEN);
    assertThat(s.name()).isEqualTo("proxy-720p-box-7");
    assertThat(s.poll()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.idle()).isEqualTo(Duration.ofSeconds(300));
    assertThat(s.healthPort()).isEqualTo(3006);
    assertThat(s.backoff()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.tmpDir()).isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "shotstash-worker"));
  }

  @Test
  void everySettingIsRead() {
    WorkerSettings s =
        WorkerSettings.fromEnvironment(Map.of("SHOTSTASH_URL", "https://media.example.org/", "WORKER_BOOTSTRAP_TOKEN",
            TOKEN, "WORKER_NAME", " proxy-a ", "WORKER_POLL_SECONDS", "2", "WORKER_TMP_DIR", "/scratch",
            "WORKER_IDLE_SECONDS", "60",
            "WORKER_HEALTH_PORT", "0", "WORKER_BACKOFF_SECONDS", "3"));
    assertThat(s).isEqualTo(new WorkerSettings("https://media.example.org", TOKEN, "proxy-a", Duration.ofSeconds(2),
        Path.of("/scratch"), Duration.ofSeconds(60), 0, Duration.ofSeconds(3)));
  }

  @Test
  void everyProblemIsOneLineNamingItsVariable() {
    WorkerSettings.InvalidSettingsException e = catchThrowableOfType(WorkerSettings.InvalidSettingsException.class,
        () -> WorkerSettings.fromEnvironment(Map.of("SHOTSTASH_URL", "ftp://x", "WORKER_BOOTSTRAP_TOKEN", "short",
            "WORKER_POLL_SECONDS", "0", "WORKER_IDLE_SECONDS", "soon", "WORKER_HEALTH_PORT", "70000",
            "WORKER_BACKOFF_SECONDS", "-1", "WORKER_NAME", "x".repeat(101))));
    assertThat(e.problems()).containsExactly(
        "SHOTSTASH_URL must be the app's http:// or https:// URL, got 'ftp://x'",
        "WORKER_BOOTSTRAP_TOKEN must be at least 32 characters (the app's WORKER_BOOTSTRAP_TOKEN)",
        "WORKER_NAME must be 1 to 100 characters without control characters",
        "WORKER_POLL_SECONDS must be between 1 and 300, got 0",
        "WORKER_IDLE_SECONDS must be a whole number between 1 and 86400, got 'soon'",
        "WORKER_HEALTH_PORT must be between 0 and 65535, got 70000",
        "WORKER_BACKOFF_SECONDS must be between 1 and 3600, got -1");
    assertThat(e.getMessage()).doesNotContain("short");
  }

  @Test
  void resumableOutputsStartAt64MbUnlessSetAndZeroTurnsThemOff() {
    assertThat(WorkerSettings.fromEnvironment(Map.of("WORKER_BOOTSTRAP_TOKEN", TOKEN)).resumableOutputBytes())
        .isEqualTo(64L << 20);
    assertThat(
        WorkerSettings.fromEnvironment(Map.of("WORKER_BOOTSTRAP_TOKEN", TOKEN, "WORKER_RESUMABLE_OUTPUT_MB", "8"))
            .resumableOutputBytes())
        .isEqualTo(8L << 20);
    assertThat(
        WorkerSettings.fromEnvironment(Map.of("WORKER_BOOTSTRAP_TOKEN", TOKEN, "WORKER_RESUMABLE_OUTPUT_MB", "0"))
            .resumableOutputBytes())
        .isZero();
    WorkerSettings.InvalidSettingsException e = catchThrowableOfType(WorkerSettings.InvalidSettingsException.class,
        () -> WorkerSettings
            .fromEnvironment(Map.of("WORKER_BOOTSTRAP_TOKEN", TOKEN, "WORKER_RESUMABLE_OUTPUT_MB", "-1")));
    assertThat(e.problems()).containsExactly("WORKER_RESUMABLE_OUTPUT_MB must be between 0 and 1048576, got -1");
  }

  @Test
  void theBootstrapTokenIsRequired() {
    WorkerSettings.InvalidSettingsException e = catchThrowableOfType(WorkerSettings.InvalidSettingsException.class,
        () -> WorkerSettings.fromEnvironment(Map.of()));
    assertThat(e.problems()).containsExactly("WORKER_BOOTSTRAP_TOKEN must be set to the app's WORKER_BOOTSTRAP_TOKEN");
  }

  @Test
  void toStringLeavesTheTokenOut() {
    WorkerSettings s = WorkerSettings.fromEnvironment(Map.of("WORKER_BOOTSTRAP_TOKEN", TOKEN));
    assertThat(s.toString()).doesNotContain(TOKEN).contains("name=");
  }

  @Test
  void inProcessWorkersUseTheDefaultsWithoutUrlOrToken() {
    WorkerSettings s = WorkerSettings.inProcess("in-process-1", Path.of("/data/worker-tmp"));
    assertThat(s.url()).isNull();
    assertThat(s.bootstrapToken()).isNull();
    assertThat(s.healthPort()).isZero();
    assertThat(s.poll()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.idle()).isEqualTo(Duration.ofSeconds(300));
    assertThat(s.backoff()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void jobToStringLeavesTheClaimOut() {
    Job job =
        new Job("0192", "shotstash/proxy-720p", 1, 3, "secret-claim", new Job.Input("/x", "a.mp4", "video/mp4", 10));
    assertThat(job.toString()).doesNotContain("secret-claim").contains("0192");
  }
}
