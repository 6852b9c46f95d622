package io.shotstash.publicdata.records;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.List;

/**
 * {@code person-evaluations/<personSlug>/<evaluator>.toml}: one voter's verdict on a slug.
 * The evaluator is {@code human-<slug>} or {@code agent-<slug>}.
 */
public record PersonEvaluation(
    String personSlug,
    String evaluator,
    String verdict,
    String reasoning,
    List<String> flags,
    Double confidence,
    Instant evaluatedAt) {

  public PersonEvaluation {
    flags = flags == null ? List.of() : List.copyOf(flags);
  }

  @JsonIgnore
  public boolean isHuman() {
    return evaluator != null && evaluator.startsWith("human-");
  }

  @JsonIgnore
  public boolean isAgent() {
    return evaluator != null && evaluator.startsWith("agent-");
  }

  /** The voter's slug, without the {@code human-}/{@code agent-} prefix. */
  @JsonIgnore
  public String voterSlug() {
    int dash = evaluator == null ? -1 : evaluator.indexOf('-');
    return dash < 0 ? evaluator : evaluator.substring(dash + 1);
  }
}
