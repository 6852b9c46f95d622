package io.shotstash.worker;

import io.shotstash.worker.ffmpeg.Ffmpeg;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference worker: makes {@code shotstash/proxy-720p} (a 720p H.264/AAC MP4) with ffmpeg. One
 * body of logic for both ways it runs: standalone over HTTP ({@link HttpWorkerClient}, started by
 * {@link WorkerMain}) and in-process inside the app ({@link EventBusWorkerClient}).
 *
 * <p>The loop is the contract's "Writing a worker": register and keep the token (in the client);
 * heartbeat every {@code heartbeatSeconds} with the active job and drop a job listed as lost; claim
 * with {@code jobs/next} (204: wait the poll interval); hand the job to the {@link JobProcessor}
 * (download, probe, encode, progress, upload, complete); then settle it. Failures follow
 * {@link Backoff} through {@link AppCalls}: 401 registers again, 401, 503 and network errors wait the
 * backoff, 429 and 507 wait Retry-After, calls about the job are retried while the claim holds, a 409
 * drops the job without a fail call, the worker's own errors are reported with {@code fail}. An idle
 * watchdog fails a job that makes no progress for {@code idle}; stopping the verticle (SIGTERM for
 * the standalone worker) stops claiming and releases the current job. Scratch files are always
 * deleted, and no token or claim is ever logged.
 *
 * <p>Everything here runs on the verticle's context; ffprobe and ffmpeg run on a worker executor.
 */
public final class WorkerLoop extends VerticleBase {
  public static final String KIND = "shotstash/proxy-720p";
  public static final String VERSION = "1.0.0";

  private static final Logger log = LoggerFactory.getLogger(WorkerLoop.class);
  /** A release on the way out gets this long; the lease covers a worker that could not say goodbye. */
  private static final long SHUTDOWN_CALL_SECONDS = 5;
  /** Stopping waits at most this long for the current job to wind down. */
  private static final long SHUTDOWN_WAIT_SECONDS = 20;

  private final WorkerSettings settings;
  private final WorkerClient client;
  private final WorkerManifest manifest;
  private final Backoff backoff;
  private final AppCalls calls;
  private final Promise<Void> loopEnded = Promise.promise();

  private WorkerExecutor executor;
  private Ffmpeg ffmpeg;
  private JobProcessor processor;
  private Naps naps;
  private Path scratchRoot;
  private Registration registration;
  private Future<Registration> registering;
  private long heartbeatTimer = -1;
  private int heartbeatSeconds;
  private boolean heartbeatInFlight;
  private JobRun current;
  private boolean stopping;
  private String phase = "starting";
  private long jobsDone;
  private volatile WorkerStatus status = new WorkerStatus("starting", false, null, 0);

  public WorkerLoop(WorkerSettings settings, WorkerClient client) {
    this.settings = settings;
    this.client = client;
    this.manifest = WorkerManifest.proxy720p(settings.name());
    this.backoff = new Backoff(settings.backoff());
    this.calls = new AppCalls(backoff, new AppCalls.Registrar() {
      @Override
      public Future<Registration> ensureRegistered() {
        return WorkerLoop.this.ensureRegistered();
      }

      @Override
      public Registration current() {
        return registration;
      }

      @Override
      public void forget(Registration used) {
        WorkerLoop.this.forget(used);
      }
    });
  }

  /** What {@code GET /healthz} shows; safe to read from any thread. */
  public WorkerStatus status() {
    return status;
  }

  public String name() {
    return settings.name();
  }

  // ---- start and stop ----

  @Override
  public Future<?> start() {
    naps = new Naps(vertx);
    executor = vertx.createSharedWorkerExecutor("shotstash-worker-" + settings.name(), 2, 24, TimeUnit.HOURS);
    ffmpeg = new Ffmpeg(vertx, executor);
    processor = new JobProcessor(client, calls, ffmpeg, executor);
    scratchRoot = settings.tmpDir().toAbsolutePath().normalize().resolve(Scratch.folderName(settings.name()));
    return executor.executeBlocking(() -> {
      Scratch.deleteTree(scratchRoot); // what a previous run of this worker left behind
      Files.createDirectories(scratchRoot);
      return null;
    }, false)
        .compose(v -> ffmpeg.checkInstalled())
        .onSuccess(v -> {
          log.info("Worker {} starting: kind {}, scratch folder {}", settings.name(), KIND, scratchRoot);
          again();
        })
        .onFailure(err -> executor.close());
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    phase("stopping");
    naps.wakeAll();
    JobRun run = current;
    if (run != null) {
      log.info("Stopping: giving job {} back to the queue", run.job.id());
      run.stop(JobRun.Stop.SHUTDOWN, "the worker is stopping");
    }
    return loopEnded.future().timeout(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)
        .otherwise(err -> {
          log.warn("Stopping: the current job did not wind down in {} s; leaving it to the lease",
              SHUTDOWN_WAIT_SECONDS);
          return null;
        })
        .eventually(() -> {
          if (heartbeatTimer >= 0) {
            vertx.cancelTimer(heartbeatTimer);
            heartbeatTimer = -1;
          }
          phase("stopped");
          log.info("Worker {} stopped after {} job(s)", settings.name(), jobsDone);
          return client.close().otherwiseEmpty();
        })
        .eventually(() -> executor.close());
  }

  // ---- the loop ----

  private void again() {
    context.runOnContext(v -> cycle());
  }

  private void cycle() {
    if (stopping) {
      loopEnded.tryComplete();
      return;
    }
    Registration[] used = {null};
    ensureRegistered().compose(reg -> {
      used[0] = reg;
      if (stopping) {
        return Future.<Job>succeededFuture(null);
      }
      phase("polling");
      return client.next();
    }).onComplete(ar -> {
      if (ar.failed()) {
        backOff(ar.cause(), used[0]).onComplete(v -> again());
        return;
      }
      Job job = ar.result();
      if (job == null) {
        naps.nap(settings.poll()).onComplete(v -> again());
      } else if (stopping) {
        log.info("Claimed job {} while stopping; giving it back", job.id());
        releaseNow(job).onComplete(v -> again());
      } else {
        runJob(job).onComplete(v -> again());
      }
    });
  }

  /** The wait after a failed register or jobs/next: never gives up, never exits. */
  private Future<Void> backOff(Throwable err, Registration used) {
    phase("backing-off");
    if (!(err instanceof WorkerCallException e)) {
      log.error("Unexpected failure; trying again in {}", seconds(backoff.waitTime()), err);
      return naps.nap(backoff.waitTime());
    }
    Backoff.Step step = calls.after(e, used);
    switch (step.action()) {
      case REGISTER_AGAIN -> log.warn("{}; registering again in {}", e.getMessage(), seconds(step.delay()));
      case WAIT -> log.warn("{}; trying again in {}", e.getMessage(), seconds(step.delay()));
      default -> {
        // a refusal that repeating will not fix (403 WORKER_REVOKED, 422 CONTRACT_UNSUPPORTED, ...):
        // say so loudly, but never exit
        log.error("{}; trying again in {}", e.getMessage(), seconds(backoff.waitTime()));
        return naps.nap(backoff.waitTime());
      }
    }
    return naps.nap(step.delay());
  }

  private Future<Registration> ensureRegistered() {
    if (registration != null) {
      return Future.succeededFuture(registration);
    }
    if (registering != null) {
      return registering;
    }
    if (current == null) {
      phase("registering");
    }
    Future<Registration> f = client.register(manifest).onSuccess(reg -> {
      registration = reg;
      publish();
      log.info("Registered as {} (worker {}) for {}; heartbeat every {} s", manifest.name(), reg.workerId(), KIND,
          reg.heartbeatSeconds());
      scheduleHeartbeats(reg.heartbeatSeconds());
    });
    registering = f;
    f.onComplete(ar -> registering = null);
    return f;
  }

  /** Drops the registration a call was made with, if it is still the current one (a 401 answered). */
  private void forget(Registration used) {
    if (used != null && registration == used) {
      registration = null;
      publish();
    }
  }

  // ---- heartbeats ----

  private void scheduleHeartbeats(int seconds) {
    int s = Math.max(1, seconds);
    if (heartbeatTimer >= 0 && s == heartbeatSeconds) {
      return;
    }
    if (heartbeatTimer >= 0) {
      vertx.cancelTimer(heartbeatTimer);
    }
    heartbeatSeconds = s;
    heartbeatTimer = vertx.setPeriodic(s * 1000L, id -> heartbeat());
  }

  private void heartbeat() {
    Registration reg = registration;
    JobRun run = current;
    if (reg == null) {
      // a job is running on a token the app refused: register again so its calls go on
      if (run != null && !stopping) {
        ensureRegistered()
            .onFailure(err -> log.warn("Could not register again: {}", WorkerCallException.from(err).getMessage()));
      }
      return;
    }
    if (heartbeatInFlight) {
      return;
    }
    heartbeatInFlight = true;
    List<String> active = run == null || run.stopped() ? List.of() : List.of(run.job.id());
    client.heartbeat(manifest, active).onComplete(ar -> {
      heartbeatInFlight = false;
      if (ar.succeeded()) {
        if (run != null && ar.result().contains(run.job.id())) {
          log.info("Job {} is no longer ours (the heartbeat listed it as lost); dropping it", run.job.id());
          run.stop(JobRun.Stop.DROP, "listed in lostJobIds");
        }
        return;
      }
      calls.after(ar.cause(), reg); // a 401 forgets the token
      log.warn("Heartbeat failed: {}", WorkerCallException.from(ar.cause()).getMessage());
    });
  }

  // ---- one job ----

  private Future<Void> runJob(Job job) {
    Path dir = scratchRoot.resolve("job-" + UUID.randomUUID());
    JobRun run = new JobRun(job, dir, new Naps(vertx), now(), () -> client.abortTransfers(job));
    current = run;
    phase("working");
    log.info("Claimed job {} (attempt {} of {}): {} of {} bytes", job.id(), job.attempt(), job.maxAttempts(),
        job.input().mimeType(), job.input().size());
    Path input = dir.resolve("input");
    IdleWatchdog idle = new IdleWatchdog(vertx, settings.idle());
    long watchdog = vertx.setPeriodic(idle.tick(), id -> idle.watch(run, input));
    return processor.process(run, input)
        .transform(ar -> settle(run, ar))
        .eventually(() -> {
          vertx.cancelTimer(watchdog);
          return executor.executeBlocking(() -> {
            Scratch.deleteTree(dir);
            return null;
          }, false).onFailure(err -> log.warn("Could not delete the scratch folder {}: {}", dir, err.getMessage()));
        })
        .onComplete(ar -> {
          current = null;
          phase(stopping ? "stopping" : "polling");
        })
        .mapEmpty();
  }

  /** How a job ends: done, dropped, released or failed. Never fails. */
  private Future<Void> settle(JobRun run, AsyncResult<String> ar) {
    Job job = run.job;
    if (ar.succeeded()) {
      jobsDone++;
      log.info("Job {} done: processed version {}", job.id(), ar.result());
      return Future.succeededFuture();
    }
    if (run.stopReason() != null) {
      return switch (run.stopReason()) {
        case DROP -> {
          log.info("Job {} dropped ({}); no fail call", job.id(), run.stopDetail());
          yield Future.succeededFuture();
        }
        case SHUTDOWN -> releaseNow(job);
        case IDLE -> reportFailure(run,
            "No progress for " + seconds(settings.idle()) + "; the worker gave up on this attempt", true);
      };
    }
    Throwable err = ar.cause();
    if (err instanceof JobFailure f) {
      return reportFailure(run, f.getMessage(), f.retryable());
    }
    if (err instanceof WorkerCallException e) {
      return reportFailure(run, "The app refused a call: " + e.getMessage(), true);
    }
    log.error("Job {} failed unexpectedly", job.id(), err);
    String why = err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
    return reportFailure(run, "The worker failed: " + why, true);
  }

  private Future<Void> reportFailure(JobRun run, String message, boolean retryable) {
    Job job = run.job;
    log.warn("Job {} failed ({}): {}", job.id(), retryable ? "retryable" : "permanent", message);
    String what = "report the failure of job " + job.id();
    return calls.retry(what, naps, () -> client.fail(job, message, retryable), () -> null, (err, step) -> {
      if (stopping || step.action() == Backoff.Action.DROP || step.action() == Backoff.Action.GIVE_UP) {
        log.warn("Could not {} ({}); leaving it to the app", what, WorkerCallException.from(err).getMessage());
        return Future.succeededFuture();
      }
      return null;
    });
  }

  /** On the way out: one release call, bounded; if it does not land, the lease returns the job. */
  private Future<Void> releaseNow(Job job) {
    return client.release(job).timeout(SHUTDOWN_CALL_SECONDS, TimeUnit.SECONDS)
        .onSuccess(v -> log.info("Job {} released back to the queue", job.id()))
        .onFailure(
            err -> log.warn("Could not release job {} ({}); the app requeues it when its lease expires", job.id(),
                WorkerCallException.from(err).getMessage()))
        .otherwiseEmpty();
  }

  // ---- status ----

  private void phase(String p) {
    phase = p;
    publish();
  }

  private void publish() {
    JobRun run = current;
    status = new WorkerStatus(phase, registration != null, run == null ? null : run.job.id(), jobsDone);
  }

  static long now() {
    return System.nanoTime() / 1_000_000;
  }

  static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + " s" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000d);
  }
}
