package io.shotstash.http.community;

import io.shotstash.testing.TestApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One app for a whole community route test class: started with its administrator signed in (the
 * subclass's own {@code @BeforeAll} runs after this one and adds its members), closed after the
 * last test. Test classes run one at a time (no parallel execution is configured), so the static
 * fields are never shared by two live classes.
 */
abstract class WithCommunityApp {
  static TestApp app;
  static CommunityApi api;
  static String admin;

  @BeforeAll
  static void startApp() {
    app = TestApp.start();
    api = new CommunityApi(app);
    admin = app.setupAndLogin();
  }

  @AfterAll
  static void closeApp() {
    app.close();
  }
}
