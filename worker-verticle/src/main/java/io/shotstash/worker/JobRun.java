package io.shotstash.worker;

import io.shotstash.worker.ffmpeg.ProcessControl;
import io.vertx.core.Future;
import java.nio.file.Path;

/** One claimed job while the loop works on it: where it is, why it was stopped, its progress state. */
final class JobRun {
  enum Stage {
    PREPARING,
    DOWNLOADING,
    PROBING,
    TRANSCODING,
    DELIVERING
  }

  /** Why the work stopped before the end. */
  enum Stop {
    /** The app took the job back (lostJobIds, 409 CLAIM_STALE / JOB_TERMINAL / FILE_GONE): no more calls. */
    DROP,
    /** The idle watchdog fired: fail it, retryable. */
    IDLE,
    /** The worker is shutting down: release it. */
    SHUTDOWN
  }

  /** Thrown into the job's future chain once it was stopped. */
  static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped(Stop why) {
      super("stopped: " + why, null, false, false);
    }
  }

  final Job job;
  final Path scratch;
  final Naps naps;
  final ProcessControl process = new ProcessControl();
  final ProgressReporter reporter = new ProgressReporter();
  private final Runnable onStop;
  private Stop stop;
  private String stopDetail;
  private Stage stage = Stage.PREPARING;
  private long lastActivity;
  long lastOutMicros = -1;
  long downloadedBytes = -1;
  Future<Void> progressCall = Future.succeededFuture();
  boolean progressInFlight;

  JobRun(Job job, Path scratch, Naps naps, long now, Runnable onStop) {
    this.job = job;
    this.scratch = scratch;
    this.naps = naps;
    this.lastActivity = now;
    this.onStop = onStop;
  }

  /** Stops the work once (the first reason wins): kills the running tool, wakes its waits, cuts its transfers. */
  void stop(Stop why, String detail) {
    if (stop != null) {
      return;
    }
    stop = why;
    stopDetail = detail;
    process.cancel();
    naps.wakeAll();
    onStop.run();
  }

  boolean stopped() {
    return stop != null;
  }

  Stop stopReason() {
    return stop;
  }

  String stopDetail() {
    return stopDetail;
  }

  <T> Future<T> stoppedFuture() {
    return Future.failedFuture(new Stopped(stop));
  }

  Stage stage() {
    return stage;
  }

  void stage(Stage s, long now) {
    stage = s;
    lastActivity = now;
  }

  void touch(long now) {
    lastActivity = now;
  }

  long lastActivity() {
    return lastActivity;
  }
}
