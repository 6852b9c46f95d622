package io.shotstash.worker.ffmpeg;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.LongConsumer;

/**
 * Runs ffprobe and ffmpeg with {@link ProcessBuilder} on a worker executor, never on an event loop.
 * Standard error goes to a file in the job's scratch folder (its tail explains a failure); ffmpeg's
 * standard output carries {@code -progress pipe:1}, read line by line, and every forward move of
 * {@code out_time_us} is handed back on the caller's context.
 */
public final class Ffmpeg {
  private static final int STDERR_TAIL_CHARS = 600;

  private final Vertx vertx;
  private final WorkerExecutor executor;
  private final String ffmpeg;
  private final String ffprobe;

  public Ffmpeg(Vertx vertx, WorkerExecutor executor) {
    this(vertx, executor, "ffmpeg", "ffprobe");
  }

  public Ffmpeg(Vertx vertx, WorkerExecutor executor, String ffmpeg, String ffprobe) {
    this.vertx = vertx;
    this.executor = executor;
    this.ffmpeg = ffmpeg;
    this.ffprobe = ffprobe;
  }

  public String ffmpegCommand() {
    return ffmpeg;
  }

  /** Fails with one readable line when ffmpeg or ffprobe cannot be run. */
  public Future<Void> checkInstalled() {
    return executor.executeBlocking(() -> {
      for (String tool : List.of(ffmpeg, ffprobe)) {
        try {
          Process p = new ProcessBuilder(tool, "-version").redirectErrorStream(true).start();
          p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
          if (p.waitFor() != 0) {
            throw new IllegalStateException(tool + " -version failed; install ffmpeg (Debian: apt-get install ffmpeg)");
          }
        } catch (IOException e) {
          throw new IllegalStateException(tool + " is not installed or not on the PATH; install ffmpeg"
              + " (Debian: apt-get install ffmpeg)");
        }
      }
      return null;
    }, false);
  }

  /** ffprobe on {@code input}; fails with {@link ProcessFailedException} when it cannot read it. */
  public Future<Probe> probe(Path input, Path stderrFile, ProcessControl control) {
    return executor.executeBlocking(() -> {
      ProcessBuilder pb = new ProcessBuilder(FfmpegArgs.probe(ffprobe, input))
          .redirectInput(Redirect.from(devNull())).redirectError(stderrFile.toFile());
      Process p = control.start(pb);
      try {
        String out;
        try (InputStream in = p.getInputStream()) {
          out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        int exit = p.waitFor();
        if (control.cancelled()) {
          throw new CancellationException("the job was stopped");
        }
        if (exit != 0) {
          throw new ProcessFailedException("ffprobe", exit, tail(stderrFile));
        }
        return Probe.parse(out);
      } finally {
        control.finished(p);
      }
    }, false);
  }

  /**
   * Runs ffmpeg with {@code args} (from {@link FfmpegArgs}); {@code onOutTime} gets each new
   * {@code out_time_us} on the calling context.
   */
  public Future<Void> run(List<String> args, Path stderrFile, ProcessControl control, LongConsumer onOutTime) {
    Context context = vertx.getOrCreateContext();
    return executor.executeBlocking(() -> {
      ProcessBuilder pb = new ProcessBuilder(args).redirectInput(Redirect.from(devNull()))
          .redirectError(stderrFile.toFile());
      Process p = control.start(pb);
      try {
        long last = -1;
        try (BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = out.readLine()) != null) {
            long us = FfmpegArgs.outTimeMicros(line);
            if (us > last) {
              last = us;
              long at = us;
              context.runOnContext(v -> onOutTime.accept(at));
            }
          }
        }
        int exit = p.waitFor();
        if (control.cancelled()) {
          throw new CancellationException("the job was stopped");
        }
        if (exit != 0) {
          throw new ProcessFailedException("ffmpeg", exit, tail(stderrFile));
        }
        return null;
      } finally {
        control.finished(p);
      }
    }, false);
  }

  private static java.io.File devNull() {
    return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }

  /** The last characters a tool wrote to standard error, on one line. */
  static String tail(Path file) {
    try {
      if (!Files.exists(file)) {
        return "";
      }
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
        long len = raf.length();
        long from = Math.max(0, len - STDERR_TAIL_CHARS);
        byte[] bytes = new byte[(int) (len - from)];
        raf.seek(from);
        raf.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8).strip().replaceAll("\\s*\\R\\s*", " | ");
      }
    } catch (IOException e) {
      return "";
    }
  }
}
