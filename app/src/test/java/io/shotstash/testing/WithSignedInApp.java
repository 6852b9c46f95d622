package io.shotstash.testing;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * One app for a whole HTTP test class, with its first administrator signed in: the subclass's
 * {@code @BeforeAll} calls {@link #startSignedIn} with its settings, and the app closes after the
 * last test (after the subclass's own {@code @AfterAll}). Test classes run one at a time (no
 * parallel execution is configured), so the static fields are never shared by two live classes.
 */
public abstract class WithSignedInApp {
  protected static TestApp app;
  /** The first administrator's bearer token. */
  protected static String admin;

  /** Starts the app with these settings and signs its first administrator in. */
  protected static void startSignedIn(Map<String, String> settings) {
    app = TestApp.start(settings);
    admin = app.setupAndLogin();
  }

  /** Starts the app with {@code bootstrapToken} as its WORKER_BOOTSTRAP_TOKEN (workers may register) and signs in. */
  protected static void startWithWorkers(String bootstrapToken) {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", bootstrapToken));
  }

  @AfterAll
  public static void closeApp() {
    if (app != null) {
      app.close();
      app = null;
    }
  }
}
