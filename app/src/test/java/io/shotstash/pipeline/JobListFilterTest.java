package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The jobs table's filter: which values are refused, and how a file name becomes a literal ILIKE piece. */
class JobListFilterTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "null", value = {
      // status   | kind                 | worker | fileName | page | perPage | bad fields
      "null       | null                 | null   | null     | 1    | 25      | ''",
      "failed     | shotstash/proxy-720p | w-1    | clip     | 2    | 100     | ''",
      "Failed     | null                 | null   | null     | 1    | 25      | status",
      "waiting_for_worker | null         | null   | null     | 1    | 25      | status",
      "null       | proxy                | null   | null     | 1    | 25      | kind",
      "null       | null                 | null   | null     | 0    | 25      | page",
      "null       | null                 | null   | null     | 1    | 0       | perPage",
      "null       | null                 | null   | null     | 1    | 101     | perPage",
      "null       | null                 | null   | null     | 1002 | 100     | page",
      "null       | null                 | null   | null     | 1001 | 100     | ''",
      "bogus      | nope                 | null   | null     | 0    | 0       | status kind page perPage",
  })
  void refusesEachBadValueByName(String status, String kind, String worker, String fileName, int page, int perPage,
      String bad) {
    JobListFilter filter = new JobListFilter(status, kind, worker, fileName, page, perPage);
    Set<String> expected = bad.isBlank() ? Set.of() : Set.of(bad.split(" "));
    assertThat(filter.problems().keySet()).isEqualTo(expected);
  }

  @Test
  void textFiltersWithControlCharactersOrTooLongAreRefused() {
    assertThat(JobListFilter.of(null, null, "a\u0007b", "x".repeat(256), null, null).problems().keySet())
        .containsExactly("worker", "fileName");
    assertThat(JobListFilter.of(null, null, null, "x".repeat(255), null, null).problems()).isEmpty();
  }

  @Test
  void blankFiltersAreNotSetAndDefaultsApply() {
    JobListFilter f = JobListFilter.of("  ", "", " w ", null, null, null);
    assertThat(f.status()).isNull();
    assertThat(f.kind()).isNull();
    assertThat(f.worker()).isEqualTo("w");
    assertThat(f.page()).isEqualTo(1);
    assertThat(f.perPage()).isEqualTo(JobListFilter.DEFAULT_PER_PAGE);
    assertThat(JobListFilter.of(null, null, null, null, 3, 10).offset()).isEqualTo(20);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "clip      | clip",
      "a_b       | a\\_b",
      "100%      | 100\\%",
      "back\\sl  | back\\\\sl",
      "%_\\      | \\%\\_\\\\",
  })
  void fileNamesAreTakenLiterally(String name, String pattern) {
    assertThat(JobListFilter.of(null, null, null, name, null, null).fileNameLike()).isEqualTo(pattern);
  }
}
