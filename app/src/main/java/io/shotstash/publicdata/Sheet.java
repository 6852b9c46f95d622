package io.shotstash.publicdata;

import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sheets of the public data repository (gitsheets layout, docs/public-data.md → Layout): each record of a sheet is
 * the file {@code <sheet>/<key><extension>}, where the key is the sheet's path template rendered
 * for that record. Each sheet also names the indexes {@link PublicState} keeps for it.
 */
public enum Sheet {
  PEOPLE("people", "${slug}", Person.class,
      Index.of("id", (k, r) -> ((Person) r).id()),
      Index.of("slug", (k, r) -> lower(((Person) r).slug())),
      Index.of("githubUserId", (k, r) -> str(((Person) r).githubUserId())),
      Index.of("githubLogin", (k, r) -> lower(((Person) r).githubLogin())),
      Index.of("avatarKey", (k, r) -> ((Person) r).avatarKey()),
      // every account by level: the setup gate reads it (setup is done once any administrator exists)
      Index.of("level", (k, r) -> ((Person) r).accountLevel()),
      // active accounts by level: the last-administrator rule reads it
      Index.of("activeLevel", (k, r) -> ((Person) r).deletedAt() == null ? ((Person) r).accountLevel() : null)),
  PROJECTS("projects", "${slug}", Project.class,
      Index.of("id", (k, r) -> ((Project) r).id()),
      Index.of("slug", (k, r) -> lower(((Project) r).slug())),
      Index.of("createdById", (k, r) -> ((Project) r).createdById()),
      Index.of("maintainerId", (k, r) -> ((Project) r).maintainerId())),
  PROJECT_MEMBERSHIPS("project-memberships", "${projectSlug}/${personSlug}", ProjectMembership.class,
      Index.of("personId", (k, r) -> ((ProjectMembership) r).personId()),
      Index.of("projectId", (k, r) -> ((ProjectMembership) r).projectId())),
  PROJECT_UPDATES("project-updates", "${projectSlug}/${number}", ProjectUpdate.class,
      Index.of("id", (k, r) -> ((ProjectUpdate) r).id()),
      Index.of("projectId", (k, r) -> ((ProjectUpdate) r).projectId()),
      Index.of("authorId", (k, r) -> ((ProjectUpdate) r).authorId())),
  PROJECT_BUZZ("project-buzz", "${projectSlug}/${slug}", ProjectBuzz.class,
      Index.of("id", (k, r) -> ((ProjectBuzz) r).id()),
      Index.of("projectId", (k, r) -> ((ProjectBuzz) r).projectId()),
      Index.of("postedById", (k, r) -> ((ProjectBuzz) r).postedById())),
  HELP_WANTED_ROLES("help-wanted-roles", "${projectSlug}/${id}", HelpWantedRole.class,
      Index.of("id", (k, r) -> ((HelpWantedRole) r).id()),
      Index.of("projectId", (k, r) -> ((HelpWantedRole) r).projectId()),
      Index.of("postedById", (k, r) -> ((HelpWantedRole) r).postedById())),
  HELP_WANTED_INTEREST("help-wanted-interest", "${roleId}/${personSlug}", HelpWantedInterest.class,
      Index.of("roleId", (k, r) -> ((HelpWantedInterest) r).roleId()),
      Index.of("personId", (k, r) -> ((HelpWantedInterest) r).personId())),
  BLOG_POSTS("blog-posts", "${slug}", BlogPost.class,
      Index.of("id", (k, r) -> ((BlogPost) r).id()),
      Index.of("authorId", (k, r) -> ((BlogPost) r).authorId())),
  TAGS("tags", "${namespace}/${slug}", Tag.class,
      Index.of("id", (k, r) -> ((Tag) r).id())),
  TAG_ASSIGNMENTS("tag-assignments", "${tagId}/${taggableType}/${taggableId}", TagAssignment.class,
      Index.of("tagId", (k, r) -> ((TagAssignment) r).tagId()),
      Index.of("taggable", (k, r) -> ((TagAssignment) r).taggableType() + ":" + ((TagAssignment) r).taggableId())),
  PERSON_EVALUATIONS("person-evaluations", "${personSlug}/${evaluator}", PersonEvaluation.class,
      Index.of("personSlug", (k, r) -> lower(((PersonEvaluation) r).personSlug())),
      Index.of("evaluator", (k, r) -> ((PersonEvaluation) r).evaluator())),
  SPAM_PURGES("spam-purges", "${id}", SpamPurge.class,
      Index.of("id", (k, r) -> ((SpamPurge) r).id()),
      Index.of("slug", (k, r) -> lower(((SpamPurge) r).slug())),
      Index.of("personId", (k, r) -> ((SpamPurge) r).personId()),
      // the GitHub callback refuses an account a purge blocks: by numeric id, else by login
      Index.of("githubUserId", (k, r) -> str(((SpamPurge) r).githubUserId())),
      Index.of("githubLogin", (k, r) -> lower(((SpamPurge) r).githubLogin())));

  /** A secondary index: a name and how to read its value from a record (null: not indexed). */
  public record Index(String name, KeyFunction key) {
    static Index of(String name, KeyFunction key) {
      return new Index(name, key);
    }
  }

  /** Reads an index value from a record and its key. */
  @FunctionalInterface
  public interface KeyFunction {
    String apply(String key, Object record);
  }

  private final String sheetName;
  private final String template;
  private final Class<?> recordType;
  private final List<Index> indexes;

  Sheet(String sheetName, String template, Class<?> recordType, Index... indexes) {
    this.sheetName = sheetName;
    this.template = template;
    this.recordType = recordType;
    this.indexes = List.of(indexes);
  }

  /** The sheet's name, also its folder ({@code root}) in the repository. */
  public String sheetName() {
    return sheetName;
  }

  public String template() {
    return template;
  }

  public Class<?> recordType() {
    return recordType;
  }

  public List<Index> indexes() {
    return indexes;
  }

  public boolean markdown() {
    return this == BLOG_POSTS;
  }

  public String extension() {
    return markdown() ? ".md" : ".toml";
  }

  /** The repository path of the record with this key. */
  public String path(String key) {
    return sheetName + "/" + key + extension();
  }

  /** The sheet name → path template map that {@code .gitsheets/} describes. */
  public static Map<String, String> templates() {
    Map<String, String> map = new LinkedHashMap<>();
    for (Sheet s : values()) {
      map.put(s.sheetName, s.template);
    }
    return map;
  }

  public static Sheet byName(String name) {
    for (Sheet s : values()) {
      if (s.sheetName.equals(name)) {
        return s;
      }
    }
    return null;
  }

  static String lower(String s) {
    return s == null ? null : s.toLowerCase(Locale.ROOT);
  }

  static String str(Object o) {
    return o == null ? null : o.toString();
  }
}
