package io.shotstash.worker;

/**
 * The worker's own failure on a job, reported with {@code POST jobs/:id/fail}: {@code retryable}
 * false when another attempt cannot do better (unreadable input, no video stream).
 */
public final class JobFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final boolean retryable;

  public JobFailure(String message, boolean retryable) {
    super(message, null, false, false);
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }
}
