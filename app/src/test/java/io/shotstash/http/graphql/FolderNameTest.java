package io.shotstash.http.graphql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.bus.ApiError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** createFolder's name rule: what PostgreSQL would store altered (a lone surrogate becomes '?') is refused. */
class FolderNameTest {

  @Test
  void aNameIsTrimmedAndMayHoldAnyCharacter() {
    assertThat(LibraryFetchers.folderName("  Café ☕ \uD83D\uDE00 ")).isEqualTo("Café ☕ \uD83D\uDE00");
  }

  @ParameterizedTest(name = "refused: {0}")
  @ValueSource(strings = {"", "   ", "a\u0000b", "tab\there", "lone \uD800", "lone \uDC00 low"})
  void emptyControlAndLoneSurrogateNamesAreRefused(String name) {
    assertThatThrownBy(() -> LibraryFetchers.folderName(name))
        .satisfies(e -> assertThat(ApiError.from(e).fields().getString("name")).isNotBlank());
  }
}
