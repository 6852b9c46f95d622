package io.shotstash.worker;

import io.shotstash.worker.ffmpeg.Ffmpeg;
import io.shotstash.worker.ffmpeg.FfmpegArgs;
import io.shotstash.worker.ffmpeg.ProcessFailedException;
import io.shotstash.worker.ffmpeg.Probe;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work on one claimed job of {@link WorkerLoop#KIND}: download the whole input to the job's
 * scratch folder, probe it and encode the 720p proxy with ffmpeg, report progress when the whole
 * percent changes (at most every 2 s; 100 at the end), upload the output and complete. The calls
 * about the job are repeated while the claim holds ({@link AppCalls}); a 409 that takes the job away
 * stops it. How the job then ends (done, dropped, released, failed) is the loop's business.
 *
 * <p>Runs on the loop's context; ffprobe and ffmpeg run on the loop's worker executor.
 */
record JobProcessor(WorkerClient client, AppCalls calls, Ffmpeg ffmpeg, WorkerExecutor executor) {
  static final String OUTPUT_TYPE = "video/mp4";
  static final String OUTPUT_EXT = "mp4";

  private static final Logger log = LoggerFactory.getLogger(JobProcessor.class);

  /** download → probe → encode → 100 % → upload → complete, into {@code input} and the scratch folder; answers the version id. */
  Future<String> process(JobRun run, Path input) {
    Job job = run.job;
    Path output = run.scratch.resolve("output." + OUTPUT_EXT);
    Probe[] probed = {null};
    return executor.executeBlocking(() -> Files.createDirectories(run.scratch), false)
        .compose(v -> {
          if (run.stopped()) {
            return run.<Path>stoppedFuture();
          }
          run.stage(JobRun.Stage.DOWNLOADING, WorkerLoop.now());
          return deliver(run, "download the input", () -> client.downloadInput(job, input));
        })
        .compose(source -> {
          if (run.stopped()) {
            return run.<Path>stoppedFuture();
          }
          run.stage(JobRun.Stage.PROBING, WorkerLoop.now());
          return ffmpeg.probe(source, run.scratch.resolve("ffprobe.log"), run.process)
              .recover(err -> Future
                  .failedFuture(err instanceof ProcessFailedException || err instanceof IllegalArgumentException
                      ? new JobFailure(
                          "The input is not a readable media file (" + redact(err.getMessage(), source, output) + ")",
                          false)
                      : err))
              .map(p -> {
                probed[0] = p;
                return source;
              });
        })
        .compose(source -> {
          if (run.stopped()) {
            return run.<Void>stoppedFuture();
          }
          Probe probe = probed[0];
          if (probe.video() == null) {
            return Future.failedFuture(new JobFailure("The input has no video stream", false));
          }
          List<String> args = FfmpegArgs.proxy(ffmpeg.ffmpegCommand(), source, output, probe);
          run.stage(JobRun.Stage.TRANSCODING, WorkerLoop.now());
          report(run, 0);
          return ffmpeg.run(args, run.scratch.resolve("ffmpeg.log"), run.process,
              us -> onOutTime(run, us, probe.durationSeconds()))
              .recover(err -> Future.failedFuture(err instanceof ProcessFailedException
                  ? new JobFailure("Encoding failed (" + redact(err.getMessage(), source, output) + ")", true) : err));
        })
        .compose(v -> executor.executeBlocking(() -> Files.exists(output) ? Files.size(output) : 0L, false))
        .compose(size -> size > 0 ? finalProgress(run)
            : Future.failedFuture(new JobFailure("ffmpeg wrote no output", true)))
        .compose(v -> {
          if (run.stopped()) {
            return run.<String>stoppedFuture();
          }
          run.stage(JobRun.Stage.DELIVERING, WorkerLoop.now());
          return deliver(run, "upload the output", () -> client.uploadOutput(job, output, OUTPUT_TYPE, OUTPUT_EXT));
        })
        .compose(version -> deliver(run, "complete the job", () -> client.complete(job)));
  }

  /** A tool's message without this machine's paths: the error text is shown to people. */
  static String redact(String message, Path input, Path output) {
    return message == null ? "" : message.replace(input.toString(), "input").replace(output.toString(), "output.mp4");
  }

  /**
   * A call about the job, repeated while the claim holds: after 429 or 507 (Retry-After), 503, a network
   * error or a 401 (registering again first). A 409 that takes the job away drops it; any other
   * refusal fails the call.
   */
  private <T> Future<T> deliver(JobRun run, String what, Supplier<Future<T>> call) {
    return calls.retry(what + " (job " + run.job.id() + ")", run.naps, call,
        () -> run.stopped() ? run.stoppedFuture() : null,
        (err, step) -> {
          if (!(err instanceof WorkerCallException e)) {
            return Future.failedFuture(err);
          }
          return switch (step.action()) {
            case DROP -> {
              log.info("Job {}: the app answered {} {}; dropping it", run.job.id(), e.status(), e.code());
              run.stop(JobRun.Stop.DROP, e.code());
              yield run.stoppedFuture();
            }
            case GIVE_UP -> Future.failedFuture(e);
            case WAIT, REGISTER_AGAIN -> null;
          };
        });
  }

  // ---- progress ----

  private void onOutTime(JobRun run, long outMicros, double durationSeconds) {
    if (run.stopped()) {
      return;
    }
    if (outMicros > run.lastOutMicros) {
      run.lastOutMicros = outMicros;
      run.touch(WorkerLoop.now());
    }
    report(run, ProgressReporter.percentOf(outMicros, durationSeconds));
  }

  private void report(JobRun run, int percent) {
    if (run.stopped() || run.progressInFlight) {
      return;
    }
    OptionalInt p = run.reporter.offer(percent, WorkerLoop.now());
    if (p.isPresent()) {
      run.progressCall = sendProgress(run, p.getAsInt());
    }
  }

  /** The last report (100), after any report still in flight. */
  private Future<Void> finalProgress(JobRun run) {
    if (run.stopped()) {
      return run.stoppedFuture();
    }
    return run.progressCall.transform(ar -> {
      OptionalInt p = run.reporter.finish();
      return p.isPresent() && !run.stopped() ? sendProgress(run, p.getAsInt()) : Future.<Void>succeededFuture();
    }).compose(v -> run.stopped() ? run.<Void>stoppedFuture() : Future.<Void>succeededFuture());
  }

  /** One progress report, never repeated; a 409 stops the job, other failures only wait for the next report. Never fails. */
  private Future<Void> sendProgress(JobRun run, int percent) {
    Registration reg = calls.registrar().current();
    if (reg == null) {
      return Future.succeededFuture();
    }
    run.progressInFlight = true;
    return client.progress(run.job, percent).transform(ar -> {
      run.progressInFlight = false;
      if (ar.failed()) {
        WorkerCallException e = WorkerCallException.from(ar.cause());
        if (calls.after(e, reg).action() == Backoff.Action.DROP) {
          log.info("Job {}: the app answered {} {} to a progress report; dropping it", run.job.id(), e.status(),
              e.code());
          run.stop(JobRun.Stop.DROP, e.code());
        } else {
          log.warn("Job {}: progress report failed ({})", run.job.id(), e.getMessage());
        }
      }
      return Future.<Void>succeededFuture();
    });
  }
}
