package io.shotstash.worker.ffmpeg;

/** A tool exited with an error; the message ends with the last lines it wrote to standard error. */
public final class ProcessFailedException extends Exception {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  public ProcessFailedException(String tool, int exitCode, String stderrTail) {
    super(tool + " exited with " + exitCode + (stderrTail.isEmpty() ? "" : ": " + stderrTail));
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
