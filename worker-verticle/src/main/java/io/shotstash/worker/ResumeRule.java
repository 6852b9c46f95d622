package io.shotstash.worker;

import java.time.Duration;

/**
 * What a resumable output upload does after one of its requests failed (docs/worker-contract.md →
 * Resumable outputs): ask {@code HEAD} where the upload stands and send the rest, start a new upload,
 * or hand the failure to the caller, whose backing off ({@link Backoff}) decides from there (a 409
 * that takes the job away drops it; 401 registers again). At most {@link #TRIES} requests fail in a
 * row before the caller hears of it, with a pause that doubles from 1 s. Pure.
 */
public final class ResumeRule {
  /** Failed requests in a row an upload takes before it hands the failure to its caller. */
  public static final int TRIES = 6;
  private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
  private static final Duration MAX_PAUSE = Duration.ofSeconds(16);

  private ResumeRule() {}

  public enum Action {
    /** Pause, ask HEAD for the offset, send the rest from there. */
    RESUME,
    /** The upload is gone (expired, removed): create a new one and send everything. */
    START_OVER,
    /** Not the upload's to fix: the caller decides (drop, register again, wait, give up). */
    HAND_OVER
  }

  /**
   * After the {@code failures}-th failed request in a row (1 for the first), answered {@code status}
   * ({@link Backoff#NO_ANSWER} for none) with {@code code}.
   */
  public static Action after(int failures, int status, String code) {
    if (failures >= TRIES) {
      return Action.HAND_OVER;
    }
    if (status == Backoff.NO_ANSWER || status == 502 || status == 503 || status == 504 || status == 500) {
      return Action.RESUME;
    }
    if (status == 409 && ("OFFSET_MISMATCH".equals(code) || "UPLOAD_BUSY".equals(code))) {
      return Action.RESUME;
    }
    if ((status == 404 && "UPLOAD_NOT_FOUND".equals(code)) || (status == 410 && "UPLOAD_EXPIRED".equals(code))) {
      return Action.START_OVER;
    }
    return Action.HAND_OVER;
  }

  /**
   * Whether an upload handed over with {@code status} is still worth resuming after the caller's
   * backing off: the network, the app being away or busy, or a token to register again (the upload
   * is the worker's, whatever its token). Any other refusal ends it: the next try starts afresh, or
   * the job is dropped.
   */
  public static boolean keepsUpload(int status) {
    return status == Backoff.NO_ANSWER || status == 401 || status == 429 || status == 507 || status >= 500;
  }

  /** The pause before the request after the {@code failures}-th failure in a row: 1 s, 2 s, 4 s, ... at most 16 s. */
  public static Duration pause(int failures) {
    int doublings = Math.max(0, Math.min(failures - 1, 4));
    Duration d = FIRST_PAUSE.multipliedBy(1L << doublings);
    return d.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : d;
  }
}
