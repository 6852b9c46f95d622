package io.shotstash.worker;

import io.vertx.core.Future;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls to the app as the contract's "Backing off" wants them: {@link Backoff} decides, this does
 * it. A 401 forgets the token the call was made with (the next call registers again); a call is
 * made again after the step's wait, on naps a stop cuts short, until it lands or its caller says how
 * it ends. The one place a failed call becomes a wait.
 */
record AppCalls(Backoff backoff, Registrar registrar) {
  private static final Logger log = LoggerFactory.getLogger(AppCalls.class);

  /** The worker's token, as the loop keeps it. */
  interface Registrar {
    /** The current registration, registering first when there is none. */
    Future<Registration> ensureRegistered();

    /** The current registration; null while there is none. */
    Registration current();

    /** Drops {@code used} if it is still the current registration (the app answered 401 to it). */
    void forget(Registration used);
  }

  /** How a failed call ends instead of being made again; null: follow the step (wait, then again). */
  @FunctionalInterface
  interface Ending<T> {
    Future<T> after(Throwable failure, Backoff.Step step);
  }

  /**
   * The step after {@code failure} of a call made with {@code used}; a 401 (REGISTER_AGAIN) forgets
   * that token at once. A failure that is no {@link WorkerCallException} counts as no answer.
   */
  Backoff.Step after(Throwable failure, Registration used) {
    Backoff.Step step = stepOf(WorkerCallException.from(failure));
    if (step.action() == Backoff.Action.REGISTER_AGAIN) {
      registrar.forget(used);
    }
    return step;
  }

  /**
   * Makes {@code call} (registered first) until it lands. Before each attempt and after each failure,
   * {@code over} may end it (a stopped job); after a failure, {@code ending} may end it (a refusal
   * that waiting does not fix); otherwise the step's wait on {@code naps}, and again.
   *
   * @param what   the call, for the log ("complete the job 42")
   * @param over   an answer that ends the call before anything else, or null to go on
   */
  <T> Future<T> retry(String what, Naps naps, Supplier<Future<T>> call, Supplier<Future<T>> over,
      Ending<T> ending) {
    Future<T> ended = over.get();
    if (ended != null) {
      return ended;
    }
    Registration[] used = {null};
    return registrar.ensureRegistered().compose(reg -> {
      used[0] = reg;
      return call.get();
    }).recover(err -> {
      Future<T> stopped = over.get();
      if (stopped != null) {
        return stopped;
      }
      WorkerCallException e = WorkerCallException.from(err);
      Backoff.Step step = stepOf(e);
      Future<T> end = ending.after(err, step);
      if (end != null) {
        return end;
      }
      if (step.action() == Backoff.Action.REGISTER_AGAIN) {
        registrar.forget(used[0]);
      }
      log.warn("Could not {} ({}); trying again in {}", what, e.getMessage(), WorkerLoop.seconds(step.delay()));
      return naps.nap(step.delay()).compose(v -> retry(what, naps, call, over, ending));
    });
  }

  private Backoff.Step stepOf(WorkerCallException e) {
    return backoff.after(e.status(), e.code(), e.retryAfterSeconds());
  }
}
