package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shotstash.config.Config;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SHOTSTASH_IN_PROCESS_WORKERS: 0 (none) by default, 0..16. */
class InProcessWorkersConfigTest {

  @Test
  void noneByDefault() {
    assertThat(Config.load(Map.of()).inProcessWorkers()).isZero();
  }

  @Test
  void readsTheSetting() {
    assertThat(Config.load(Map.of("SHOTSTASH_IN_PROCESS_WORKERS", "16")).inProcessWorkers()).isEqualTo(16);
  }

  @Test
  void refusesOutOfRangeOrNotANumber() {
    assertThat(catchThrowableOfType(Config.InvalidConfigException.class,
        () -> Config.load(Map.of("SHOTSTASH_IN_PROCESS_WORKERS", "17"))).problems())
        .containsExactly("SHOTSTASH_IN_PROCESS_WORKERS must be between 0 and 16, got 17");
    assertThat(catchThrowableOfType(Config.InvalidConfigException.class,
        () -> Config.load(Map.of("SHOTSTASH_IN_PROCESS_WORKERS", "two"))).problems())
        .containsExactly("SHOTSTASH_IN_PROCESS_WORKERS must be a whole number between 0 and 16, got 'two'");
  }
}
