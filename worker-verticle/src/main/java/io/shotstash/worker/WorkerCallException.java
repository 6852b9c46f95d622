package io.shotstash.worker;

/**
 * A worker call that did not succeed: the HTTP status ({@link Backoff#NO_ANSWER} when there was no
 * answer at all), the contract's error code (null when the answer had none) and {@code Retry-After}
 * in seconds (null when absent). The message names the call and the app's message; it never holds
 * a token.
 */
public final class WorkerCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final Integer retryAfterSeconds;

  private WorkerCallException(String message, int status, String code, Integer retryAfterSeconds, Throwable cause) {
    super(message, cause, false, false);
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The app answered {@code status} with {@code {code, message}}. */
  public static WorkerCallException refused(String call, int status, String code, String message,
      Integer retryAfterSeconds) {
    return new WorkerCallException(call + ": " + status + (code == null ? "" : " " + code)
        + (message == null || message.isBlank() ? "" : " (" + message + ")"), status, code, retryAfterSeconds, null);
  }

  /** No answer: connection refused or reset, timeout, no handler on the event bus. */
  public static WorkerCallException noAnswer(String call, Throwable cause) {
    String why = cause == null ? "no answer"
        : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new WorkerCallException(call + ": no answer (" + why + ")", Backoff.NO_ANSWER, null, null, cause);
  }

  /** Any failure of a call, as a WorkerCallException (those that are not are treated as no answer). */
  public static WorkerCallException from(Throwable failure) {
    return failure instanceof WorkerCallException w ? w : noAnswer("call", failure);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  public Integer retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
