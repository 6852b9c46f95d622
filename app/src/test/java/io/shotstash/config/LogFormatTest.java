package io.shotstash.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The two log settings: their defaults, the values they take, and a start refused on a typo. */
class LogFormatTest {

  @Test
  void plainTextWithoutAnAccessLogByDefault() {
    assertThat(LogFormat.of(Map.of())).isEqualTo(new LogFormat(false, false));
    assertThat(LogFormat.problems(Map.of())).isEmpty();
  }

  @Test
  void jsonAndTheAccessLogWhenAsked() {
    Map<String, String> env = Map.of(LogFormat.FORMAT, " JSON ", LogFormat.ACCESS_LOG, "true");
    assertThat(LogFormat.of(env)).isEqualTo(new LogFormat(true, true));
    assertThat(LogFormat.problems(env)).isEmpty();
    assertThat(LogFormat.problems(Map.of(LogFormat.FORMAT, "text", LogFormat.ACCESS_LOG, "false"))).isEmpty();
  }

  @Test
  void aValueItDoesNotKnowIsAProblemNamingTheSettingAndTheStartIsRefused() {
    Map<String, String> env = Map.of(LogFormat.FORMAT, "xml", LogFormat.ACCESS_LOG, "yes");
    assertThat(LogFormat.problems(env)).containsExactly("SHOTSTASH_LOG_FORMAT must be text or json, got 'xml'",
        "SHOTSTASH_ACCESS_LOG must be true or false, got 'yes'");
    assertThatThrownBy(() -> Config.load(env)).isInstanceOf(Config.InvalidConfigException.class)
        .hasMessageContaining("SHOTSTASH_LOG_FORMAT must be text or json");
  }
}
