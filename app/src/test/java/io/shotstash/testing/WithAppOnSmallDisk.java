package io.shotstash.testing;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;

/**
 * One app for a whole full-disk test class, its data folder on a 48 MiB {@link SmallDisk}, its first
 * administrator signed in: the subclass's {@code @BeforeAll} calls {@link #startOnSmallDisk}. The
 * filler goes after each test (the space is back for the next one), and the app closes and the
 * disk is unmounted after the last. Test classes run one at a time (no parallel execution is
 * configured), so the static fields are never shared by two live classes.
 */
public abstract class WithAppOnSmallDisk {
  protected static SmallDisk disk;
  protected static TestApp app;
  /** The first administrator's bearer token. */
  protected static String admin;

  /** Mounts the disk, starts the app on it with these settings and signs its administrator in. */
  protected static void startOnSmallDisk(Map<String, String> settings) {
    disk = SmallDisk.mount(48);
    app = disk.startApp(settings);
    admin = app.setupAndLogin();
  }

  @AfterEach
  public void spaceBack() {
    disk.free();
  }

  @AfterAll
  public static void closeAppAndDisk() {
    if (disk != null) {
      disk.closeWith(app);
    }
    disk = null;
    app = null;
  }
}
