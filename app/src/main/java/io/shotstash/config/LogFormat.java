package io.shotstash.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the app logs, from two settings read straight from the environment (logging starts before
 * {@link Config}, which only checks them): {@code SHOTSTASH_LOG_FORMAT} ({@code text}, the default,
 * or {@code json}: one JSON object per line) and {@code SHOTSTASH_ACCESS_LOG} ({@code false}, the
 * default, or {@code true}: a line per HTTP request). docs/operations.md → Logs.
 */
public record LogFormat(boolean json, boolean accessLog) {
  public static final String FORMAT = "SHOTSTASH_LOG_FORMAT";
  public static final String ACCESS_LOG = "SHOTSTASH_ACCESS_LOG";
  /** The logger of the access log's lines; off unless {@code SHOTSTASH_ACCESS_LOG=true}. */
  public static final String ACCESS_LOGGER = "io.shotstash.access";

  /** The settings in {@code env}; a value this does not know counts as its default (Config refuses it). */
  public static LogFormat of(Map<String, String> env) {
    return new LogFormat("json".equals(normal(env.get(FORMAT))), "true".equals(normal(env.get(ACCESS_LOG))));
  }

  /** What is wrong with the settings in {@code env}: a line per setting, none when both are fine. */
  public static List<String> problems(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    String format = normal(env.get(FORMAT));
    if (format != null && !format.equals("text") && !format.equals("json")) {
      problems.add(FORMAT + " must be text or json, got '" + env.get(FORMAT) + "'");
    }
    String access = normal(env.get(ACCESS_LOG));
    if (access != null && !access.equals("true") && !access.equals("false")) {
      problems.add(ACCESS_LOG + " must be true or false, got '" + env.get(ACCESS_LOG) + "'");
    }
    return problems;
  }

  private static String normal(String value) {
    return value == null || value.isBlank() ? null : value.strip().toLowerCase(Locale.ROOT);
  }
}
