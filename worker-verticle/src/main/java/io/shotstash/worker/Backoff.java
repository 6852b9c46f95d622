package io.shotstash.worker;

import java.time.Duration;
import java.util.Set;

/**
 * What a worker does after a call to the app failed (the contract's "Backing off"): the answer's
 * status, its contract code and its {@code Retry-After} decide. Pure: no Vert.x, no clock.
 *
 * <ul>
 *   <li>no answer at all (connection refused, reset, timed out; status 0), 502, 503, 504: wait the
 *       backoff (30 s) and try again;</li>
 *   <li>401: the token is gone: register again (same name) after the backoff;</li>
 *   <li>429, and 507 (the app's disk is full; the work is done and the claim holds, so the output
 *       waits for space rather than failing the job): wait {@code Retry-After} seconds (the backoff
 *       when it is missing);</li>
 *   <li>409 {@code CLAIM_STALE}, {@code JOB_TERMINAL}, {@code FILE_GONE} and 404 {@code JOB_NOT_FOUND}:
 *       the job is no longer ours: drop it, never call fail;</li>
 *   <li>anything else: give up on the call (for a job: report it with {@code fail}).</li>
 * </ul>
 */
public final class Backoff {
  /** Status used for a call that got no answer (a network error). */
  public static final int NO_ANSWER = 0;

  /** The codes that mean "this job is not yours any more; stop and drop the work". */
  public static final Set<String> DROP_CODES = Set.of("CLAIM_STALE", "JOB_TERMINAL", "FILE_GONE", "JOB_NOT_FOUND");

  public enum Action {
    /** Wait {@link Step#delay()}, then make the same call again. */
    WAIT,
    /** Forget the token, wait {@link Step#delay()}, register again, then make the call again. */
    REGISTER_AGAIN,
    /** Stop working on the job; no fail call. */
    DROP,
    /** The call cannot succeed by repeating it. */
    GIVE_UP
  }

  public record Step(Action action, Duration delay) {}

  private final Duration wait;

  /** {@code wait}: the contract's 30 s (WORKER_BACKOFF_SECONDS). */
  public Backoff(Duration wait) {
    if (wait.isNegative() || wait.isZero()) {
      throw new IllegalArgumentException("the backoff must be positive");
    }
    this.wait = wait;
  }

  public Duration waitTime() {
    return wait;
  }

  public Step after(int status, String code, Integer retryAfterSeconds) {
    if (status == NO_ANSWER || status == 502 || status == 503 || status == 504) {
      return new Step(Action.WAIT, wait);
    }
    if (status == 401) {
      return new Step(Action.REGISTER_AGAIN, wait);
    }
    if (status == 429 || status == 507) {
      Duration d = retryAfterSeconds == null || retryAfterSeconds < 0 ? wait
          : Duration.ofSeconds(Math.max(1, Math.min(retryAfterSeconds, 3600)));
      return new Step(Action.WAIT, d);
    }
    if ((status == 409 || status == 404) && code != null && DROP_CODES.contains(code)) {
      return new Step(Action.DROP, Duration.ZERO);
    }
    return new Step(Action.GIVE_UP, Duration.ZERO);
  }
}
