package io.shotstash.worker.ffmpeg;

import java.io.IOException;
import java.util.concurrent.CancellationException;

/**
 * The process a job is running, so that another thread can kill it (the job was lost, the watchdog
 * fired, the worker is stopping). Once cancelled, nothing new starts under it.
 */
public final class ProcessControl {
  private Process process;
  private boolean cancelled;

  synchronized Process start(ProcessBuilder builder) throws IOException {
    if (cancelled) {
      throw new CancellationException("the job was stopped");
    }
    process = builder.start();
    return process;
  }

  synchronized void finished(Process p) {
    if (process == p) {
      process = null;
    }
  }

  public synchronized boolean cancelled() {
    return cancelled;
  }

  /** Kills the running process (if any) and refuses new ones. */
  public synchronized void cancel() {
    cancelled = true;
    if (process != null) {
      process.destroyForcibly();
    }
  }
}
