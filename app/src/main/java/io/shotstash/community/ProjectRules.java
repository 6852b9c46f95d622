package io.shotstash.community;

import io.shotstash.publicdata.Slugs;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a project and the things posted on it may hold (docs/community-api.md → Projects, Updates,
 * Buzz, Help wanted, Tags): the stages, the length of each text, the buzz URL, the tag namespaces
 * and the slugs a caller may choose. The routes check a body against these and collect every
 * problem into one 422; the write rules ({@link ProjectWrites}) decide the rest. Pure.
 */
public final class ProjectRules {
  private ProjectRules() {}

  public static final Set<String> STAGES = Set.of("commenting", "bootstrapping", "prototyping", "testing",
      "maintaining", "drifting", "hibernating");
  public static final Set<String> TAG_NAMESPACES = Set.of("topic", "tech", "event");
  /** A buzz link: http or https, no white space, at most 2000 characters after the scheme. */
  static final Pattern URL = Pattern.compile("^https?://[^\\s]{1,2000}$");

  public static final TextLength TITLE = new TextLength(1, 200);
  public static final TextLength SUMMARY = new TextLength(0, 1000);
  public static final TextLength OVERVIEW = new TextLength(0, 20000);
  public static final TextLength UPDATE_BODY = new TextLength(1, 20000);
  public static final TextLength BUZZ_HEADLINE = new TextLength(1, 200);
  public static final TextLength BUZZ_URL = new TextLength(1, 2000);
  public static final TextLength BUZZ_SUMMARY = new TextLength(0, 2000);
  public static final TextLength ROLE_TITLE = new TextLength(1, 200);
  public static final TextLength ROLE_DESCRIPTION = new TextLength(1, 10000);
  public static final TextLength INTEREST_MESSAGE = new TextLength(0, 2000);
  public static final TextLength TAG_TITLE = new TextLength(1, 100);

  public static String stageProblem(String stage) {
    return STAGES.contains(stage) ? null : "must be one of " + String.join(", ", STAGES.stream().sorted().toList());
  }

  public static String buzzUrlProblem(String url) {
    return URL.matcher(url).matches() ? null : "must be an http or https URL";
  }

  public static String namespaceProblem(String namespace) {
    return namespace != null && TAG_NAMESPACES.contains(namespace) ? null : "must be topic, tech or event";
  }

  public static String projectSlugProblem(String slug) {
    return Slugs.PROJECT.matcher(slug).matches() ? null : "must be 2 to 80 lowercase letters, digits, - or _";
  }

  public static String buzzSlugProblem(String slug) {
    return Slugs.BUZZ.matcher(slug).matches() ? null : "must be 2 to 100 lowercase letters, digits or dashes";
  }

  public static String tagSlugProblem(String slug) {
    return Slugs.TAG.matcher(slug).matches() ? null : "must be 1 to 50 lowercase letters, digits or dashes";
  }
}
