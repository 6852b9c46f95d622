package io.shotstash.worker;

import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a job that moved no bytes and no encoding position for {@code idle} (WorkerSettings): the
 * attempt is failed as retryable. Delivering the output is governed by the claim instead, so a job
 * in that stage is never stopped here. Runs on the worker loop's context, from a periodic timer.
 */
record IdleWatchdog(Vertx vertx, Duration idle) {
  private static final Logger log = LoggerFactory.getLogger(IdleWatchdog.class);

  /** How often to look: a quarter of {@code idle}, between 100 ms and 5 s. */
  long tick() {
    return Math.max(100, Math.min(5_000, idle.toMillis() / 4));
  }

  /** One look at {@code run}; while it downloads, the input file's growth counts as activity. */
  void watch(JobRun run, Path input) {
    if (run.stopped() || run.stage() == JobRun.Stage.DELIVERING) {
      return;
    }
    if (run.stage() == JobRun.Stage.DOWNLOADING) {
      vertx.fileSystem().props(input.toString()).onComplete(ar -> {
        if (ar.succeeded() && ar.result().size() > run.downloadedBytes) {
          run.downloadedBytes = ar.result().size();
          run.touch(WorkerLoop.now());
        }
        checkIdle(run);
      });
      return;
    }
    checkIdle(run);
  }

  private void checkIdle(JobRun run) {
    if (run.stopped() || run.stage() == JobRun.Stage.DELIVERING) {
      return;
    }
    if (WorkerLoop.now() - run.lastActivity() >= idle.toMillis()) {
      log.warn("Job {}: no progress for {} while {}; giving up on this attempt", run.job.id(), WorkerLoop.seconds(idle),
          run.stage().name().toLowerCase(Locale.ROOT));
      run.stop(JobRun.Stop.IDLE, "idle");
    }
  }
}
