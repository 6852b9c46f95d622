package io.shotstash.testing;

import io.vertx.core.Vertx;

/** What a test class's {@code @AfterAll} does with the things its {@code @BeforeAll} opened. */
public final class Teardown {
  private Teardown() {}

  /** A Vert.x instance as a thing {@link #closeAll} closes (and waits for); null stays null. */
  public static AutoCloseable of(Vertx vertx) {
    return vertx == null ? null : () -> vertx.close().await();
  }

  /**
   * Closes each thing in order, skipping the ones a failed {@code @BeforeAll} never opened (null); a
   * failure to close one does not keep the others open, and the first failure is thrown at the end.
   */
  public static void closeAll(AutoCloseable... things) {
    RuntimeException failure = null;
    for (AutoCloseable thing : things) {
      if (thing == null) {
        continue;
      }
      try {
        thing.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
