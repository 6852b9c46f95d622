package io.shotstash.worker;

/**
 * A claimed job, as {@code jobs/next} answers it. {@link #toString()} leaves the claim token out,
 * so a job can be logged.
 */
public record Job(String id, String kind, int attempt, int maxAttempts, String claimToken, Input input) {

  /** Where the original is and what it is. {@code url} is relative to the app's URL. */
  public record Input(String url, String name, String mimeType, long size) {}

  @Override
  public String toString() {
    return "Job[id=" + id + ", kind=" + kind + ", attempt=" + attempt + "/" + maxAttempts + ", input="
        + input.mimeType() + " " + input.size() + " bytes]";
  }
}
