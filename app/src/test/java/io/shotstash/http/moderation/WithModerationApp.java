package io.shotstash.http.moderation;

import io.shotstash.testing.TestApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One app for a whole moderation test class, started with {@link ModerationHarness#QUIET} and its
 * administrator signed in (the subclass's own {@code @BeforeAll} runs after this one and adds its
 * members, its nudger and its agents), closed after the last test. Test classes run one at a time
 * (no parallel execution is configured), so the static fields are never shared by two live classes.
 */
abstract class WithModerationApp {
  static TestApp app;
  static ModerationHarness h;
  static String admin;

  @BeforeAll
  static void startApp() {
    app = TestApp.start(ModerationHarness.QUIET);
    h = new ModerationHarness(app);
    admin = app.setupAndLogin();
  }

  @AfterAll
  static void closeApp() {
    app.close();
  }
}
