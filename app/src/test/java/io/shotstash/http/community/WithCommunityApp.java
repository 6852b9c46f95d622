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
  /** A staff member, for the classes that call {@link #staffAndUser} (else null). */
  static String staff;
  /** An ordinary member (level user) with no part in what a test makes unless it says so; see {@link #staffAndUser}. */
  static String user;

  @BeforeAll
  static void startApp() {
    app = TestApp.start();
    api = new CommunityApi(app);
    admin = app.setupAndLogin();
  }

  /** Creates {@link #staff} and {@link #user} under these slugs (from the subclass's own {@code @BeforeAll}). */
  static void staffAndUser(String staffSlug, String userSlug) {
    staff = api.member(admin, staffSlug, "staff");
    user = api.member(admin, userSlug, "user");
  }

  @AfterAll
  static void closeApp() {
    app.close();
  }
}
