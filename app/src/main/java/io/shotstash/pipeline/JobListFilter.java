package io.shotstash.pipeline;

import io.shotstash.pipeline.contract.JobStatus;
import io.shotstash.pipeline.contract.Kinds;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the jobs table asks for (GraphQL {@code pipelineJobs}): filters, each null when not set (a
 * blank one counts as not set), and the page. {@link #problems} says what is wrong with each bad
 * value, in the GraphQL error's {@code fields}; the table is read only when there is none.
 */
public record JobListFilter(String status, String kind, String worker, String fileName, int page, int perPage) {
  public static final int DEFAULT_PER_PAGE = 25;
  /** Paging is by offset, so the page size is bounded (and so is the page: see {@link #MAX_OFFSET}). */
  public static final int MAX_PER_PAGE = 100;
  /** Past this many rows an offset read gets slow; narrow the filters instead. */
  public static final int MAX_OFFSET = 100_000;
  /** Longer than any worker or file name the app accepts. */
  public static final int MAX_TEXT = 255;

  public JobListFilter {
    status = blankToNull(status);
    kind = blankToNull(kind);
    worker = blankToNull(worker);
    fileName = blankToNull(fileName);
  }

  /** The filter with the defaults for what was not given (page 1, {@link #DEFAULT_PER_PAGE}). */
  public static JobListFilter of(String status, String kind, String worker, String fileName, Integer page,
      Integer perPage) {
    return new JobListFilter(status, kind, worker, fileName, page == null ? 1 : page,
        perPage == null ? DEFAULT_PER_PAGE : perPage);
  }

  /** Each bad field and why, in field order; empty when the filter may be run. */
  public Map<String, String> problems() {
    Map<String, String> out = new LinkedHashMap<>();
    if (status != null && Arrays.stream(JobStatus.values()).noneMatch(s -> s.wire().equals(status))) {
      out.put("status", "must be one of queued, claimed, running, done, failed, cancelled");
    }
    if (kind != null && !Kinds.valid(kind)) {
      out.put("kind", "must be a kind name such as shotstash/proxy-720p");
    }
    if (worker != null && !plainText(worker)) {
      out.put("worker", "must be at most " + MAX_TEXT + " characters, without control characters");
    }
    if (fileName != null && !plainText(fileName)) {
      out.put("fileName", "must be at most " + MAX_TEXT + " characters, without control characters");
    }
    if (page < 1) {
      out.put("page", "must be 1 or more");
    } else if ((long) (page - 1) * Math.max(perPage, 1) > MAX_OFFSET) {
      out.put("page", "goes beyond the first " + MAX_OFFSET + " jobs; narrow the filters instead");
    }
    if (perPage < 1 || perPage > MAX_PER_PAGE) {
      out.put("perPage", "must be from 1 to " + MAX_PER_PAGE);
    }
    return out;
  }

  /** The rows skipped before the page. */
  public int offset() {
    return (page - 1) * perPage;
  }

  /** The file-name filter as an ILIKE pattern piece: its wildcards (% and _) and the escape (\) taken literally. */
  public String fileNameLike() {
    return fileName == null ? null : escapeLike(fileName);
  }

  static String escapeLike(String text) {
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }

  private static boolean plainText(String s) {
    return s.length() <= MAX_TEXT && s.codePoints().noneMatch(Character::isISOControl);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
