package io.shotstash.publicdata;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A commit message of the public data repository (docs/public-data.md → Commit shape): a subject
 * ({@code <actor-slug>: <METHOD> <path>}, or {@code system: <what>}), an optional body and git
 * trailers. Trailer values never contain a line break. The body is free text (a vote's reasoning, a
 * purge or unblock reason), so every line of it is indented by {@link #BODY_INDENT}: {@code git log
 * --grep='^Action: person.purge$'} is the audit log, and it matches any line of the message, so a
 * body line must never start like a trailer ({@code Key: value}) nor like git's patch divider.
 */
public record CommitMessage(String subject, String body, List<Map.Entry<String, String>> trailers) {
  /** What starts every line of the body, so no body line starts at the left margin. */
  public static final String BODY_INDENT = "  ";

  public CommitMessage {
    subject = oneLine(subject);
    body = body == null ? null : cleanBody(body);
    trailers = List.copyOf(trailers);
    for (Map.Entry<String, String> t : trailers) {
      if (!t.getKey().matches("[A-Za-z][A-Za-z0-9-]*")) {
        throw new IllegalArgumentException("bad trailer key " + t.getKey());
      }
    }
  }

  /** Starts a message with its subject. */
  public static Builder subject(String subject) {
    return new Builder(subject);
  }

  /** The message as git stores it. */
  public String render() {
    StringBuilder sb = new StringBuilder(subject).append("\n");
    if (body != null && !body.isBlank()) {
      sb.append("\n");
      for (String line : body.strip().split("\n", -1)) {
        String text = line.stripTrailing();
        // a blank line stays empty: it separates paragraphs and carries nothing to forge
        sb.append(text.isEmpty() ? "" : BODY_INDENT + text).append("\n");
      }
    }
    if (!trailers.isEmpty()) {
      sb.append("\n");
      for (Map.Entry<String, String> t : trailers) {
        sb.append(t.getKey()).append(": ").append(t.getValue()).append("\n");
      }
    }
    return sb.toString();
  }

  /** Collapses any line break or control character to a space: subjects and trailer values are one line. */
  static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("[\\p{Cntrl}\\u2028\\u2029\\u0085]+", " ").strip();
  }

  private static String cleanBody(String s) {
    // keep line breaks (a summary may have paragraphs), every kind of them as a line feed, so that
    // render() indents each one; no other control characters
    return s.replaceAll("\\r\\n|[\\r\\u2028\\u2029\\u0085]", "\n").replaceAll("[\\p{Cntrl}&&[^\\n]]", " ");
  }

  /** Builds a message; trailers keep the order they are added in. */
  public static final class Builder {
    private final String subject;
    private String body;
    private final List<Map.Entry<String, String>> trailers = new ArrayList<>();

    private Builder(String subject) {
      this.subject = subject;
    }

    public Builder body(String body) {
      this.body = body;
      return this;
    }

    /** Adds a trailer; a null value adds nothing. */
    public Builder trailer(String key, String value) {
      if (value != null) {
        trailers.add(Map.entry(key, oneLine(value)));
      }
      return this;
    }

    public CommitMessage build() {
      return new CommitMessage(subject, body, trailers);
    }
  }
}
