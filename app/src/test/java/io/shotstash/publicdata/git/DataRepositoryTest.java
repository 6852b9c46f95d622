package io.shotstash.publicdata.git;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataRepositoryTest {

  private static final String BRANCH = "published";
  private static final PersonIdent SYSTEM =
      new PersonIdent("Shotstash", "system@shotstash.invalid", Instant.parse("2024-05-01T10:00:00Z"), ZoneOffset.UTC);
  private static final PersonIdent AUTHOR =
      new PersonIdent("Editor", "editor@shotstash.invalid", Instant.parse("2024-05-02T10:00:00Z"), ZoneOffset.UTC);

  @TempDir
  Path tmp;

  private static Map<String, String> sheets() {
    Map<String, String> sheets = new LinkedHashMap<>();
    sheets.put("people", "${slug}");
    sheets.put("project-memberships", "${projectSlug}/${personSlug}");
    return sheets;
  }

  @Test
  void initCreatesBareRepositoryBranchAndSheetFiles() throws Exception {
    Path dir = tmp.resolve("does/not/exist/yet.git");

    try (DataRepository data = DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM)) {
      assertThat(data.repository().isBare()).isTrue();
      assertThat(data.branch()).isEqualTo(BRANCH);
      Ref head = data.repository().exactRef(Constants.HEAD);
      assertThat(head.isSymbolic()).isTrue();
      assertThat(head.getTarget().getName()).isEqualTo("refs/heads/published");
      assertThat(data.head()).isNotNull().isEqualTo(head.getObjectId());

      RevCommit commit = parse(data, data.head());
      assertThat(commit.getParentCount()).isZero();
      assertThat(commit.getFullMessage()).isEqualTo("system: initialise data repository");
      assertThat(commit.getAuthorIdent().getName()).isEqualTo("Shotstash");
      assertThat(commit.getCommitterIdent().getEmailAddress()).isEqualTo("system@shotstash.invalid");
      assertThat(contents(data, data.head())).containsOnly(
          Map.entry(".gitsheets/people.toml", "[gitsheet]\nroot = 'people'\npath = '${slug}'\n"),
          Map.entry(".gitsheets/project-memberships.toml",
              "[gitsheet]\nroot = 'project-memberships'\npath = '${projectSlug}/${personSlug}'\n"));
      assertThat(data.repository().getConfig().getInt("gc", "auto", -1)).isZero();
    }
  }

  @Test
  void initWorksInAnExistingEmptyDirectory() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("empty"));
    try (DataRepository data = DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM)) {
      assertThat(data.repository().isBare()).isTrue();
      assertThat(data.readSheetTemplates(data.head())).hasSize(2);
    }
  }

  @Test
  void reopeningMakesNoCommit() {
    Path dir = tmp.resolve("data.git");
    ObjectId first;
    try (DataRepository data = DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM)) {
      first = data.head();
    }
    try (DataRepository data = DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM)) {
      assertThat(data.head()).isEqualTo(first);
    }
  }

  @Test
  void addingASheetLaterAddsOnlyTheMissingFile() throws Exception {
    Path dir = tmp.resolve("data.git");
    ObjectId customised;
    String customPeople = "[gitsheet]\nroot = 'people'\npath = '${slug}'\n# edited by hand\n";
    try (DataRepository data = DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM);
        GitTreeWriter writer = new GitTreeWriter(data.repository(), BRANCH)) {
      customised = committed(writer.commit(data.head(),
          List.of(PathChange.put(".gitsheets/people.toml", customPeople.getBytes(UTF_8))), AUTHOR, "edit"));
    }

    Map<String, String> more = sheets();
    more.put("person-evaluations", "${personSlug}/${year}");
    try (DataRepository data = DataRepository.openOrInit(dir, BRANCH, more, SYSTEM)) {
      RevCommit commit = parse(data, data.head());
      assertThat(commit.getFullMessage()).isEqualTo("system: add sheet configuration");
      assertThat(commit.getParent(0)).isEqualTo(customised);
      assertThat(data.changedPaths(customised, data.head())).containsExactly(".gitsheets/person-evaluations.toml");
      assertThat(new String(data.readFile(data.head(), ".gitsheets/people.toml"), UTF_8)).isEqualTo(customPeople);
      assertThat(new String(data.readFile(data.head(), ".gitsheets/person-evaluations.toml"), UTF_8))
          .isEqualTo("[gitsheet]\nroot = 'person-evaluations'\npath = '${personSlug}/${year}'\n");
    }
  }

  @Test
  void openingWithAnotherBranchPointsHeadAtIt() throws Exception {
    Path dir = tmp.resolve("data.git");
    DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM).close();
    try (DataRepository data = DataRepository.openOrInit(dir, "staging", sheets(), SYSTEM)) {
      assertThat(data.repository().exactRef(Constants.HEAD).getTarget().getName()).isEqualTo("refs/heads/staging");
      assertThat(parse(data, data.head()).getFullMessage()).isEqualTo("system: initialise data repository");
      assertThat(data.repository().exactRef("refs/heads/published")).isNotNull();
    }
  }

  @Test
  void refusesDirectoriesThatAreNotBareRepositories() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("stuff"));
    Files.writeString(dir.resolve("hello.txt"), "hi");
    assertThatThrownBy(() -> DataRepository.openOrInit(dir, BRANCH, sheets(), SYSTEM))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void refusesTemplatesThatCannotBeWrittenAsLiteralStrings() {
    Path dir = tmp.resolve("data.git");
    assertThatThrownBy(() -> DataRepository.openOrInit(dir, BRANCH, Map.of("people", "it's"), SYSTEM))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DataRepository.openOrInit(dir, BRANCH, Map.of("a/b", "${slug}"), SYSTEM))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void readTreeVisitsEveryFile() {
    try (DataRepository data = DataRepository.openOrInit(tmp.resolve("data.git"), BRANCH, sheets(), SYSTEM);
        GitTreeWriter writer = new GitTreeWriter(data.repository(), BRANCH)) {
      ObjectId head = committed(writer.commit(data.head(), List.of(
          put("people/jane.toml", "name = 'Jane'\n"),
          put("people/joe.toml", "name = 'Joe'\n"),
          put("project-memberships/apollo/jane.toml", "role = 'lead'\n")), AUTHOR, "add"));

      Map<String, String> visited = new TreeMap<>();
      data.readTree(head, (path, bytes) -> visited.put(path, new String(bytes, UTF_8)));

      assertThat(visited).containsOnlyKeys(".gitsheets/people.toml", ".gitsheets/project-memberships.toml",
          "people/jane.toml", "people/joe.toml", "project-memberships/apollo/jane.toml");
      assertThat(visited).containsEntry("project-memberships/apollo/jane.toml", "role = 'lead'\n");
      List<String> none = new ArrayList<>();
      data.readTree(null, (path, bytes) -> none.add(path));
      assertThat(none).isEmpty();
    }
  }

  @Test
  void readSheetTemplatesParsesTheConfiguration() {
    String handWritten = """
        # written by a human
        [gitsheet]
        root = "evaluations"   # double quotes and a comment
        path = "${personSlug}/\\u0024{year}"

        [gitsheet.fields]
        path = 'ignored'
        """;
    try (DataRepository data = DataRepository.openOrInit(tmp.resolve("data.git"), BRANCH, sheets(), SYSTEM);
        GitTreeWriter writer = new GitTreeWriter(data.repository(), BRANCH)) {
      ObjectId head = committed(writer.commit(data.head(), List.of(
          put(".gitsheets/person-evaluations.toml", handWritten),
          put(".gitsheets/README.md", "not a sheet")), AUTHOR, "sheet"));

      assertThat(data.readSheetTemplates(head)).containsExactly(
          Map.entry("people", "${slug}"),
          Map.entry("evaluations", "${personSlug}/${year}"),
          Map.entry("project-memberships", "${projectSlug}/${personSlug}"));
      assertThat(data.readSheetTemplates(null)).isEmpty();
    }
  }

  @Test
  void parseGitsheetSectionReadsOnlyTheGitsheetTable() {
    assertThat(SheetConfig.parseGitsheetSection("[other]\nroot = 'x'\n[ gitsheet ]\n'root' = 'a'\npath='b/${c}'\n"))
        .containsOnly(Map.entry("root", "a"), Map.entry("path", "b/${c}"));
    assertThat(SheetConfig.parseGitsheetSection("[gitsheet]\r\npath = \"say \\\"hi\\\"\"\r\n"))
        .containsOnly(Map.entry("path", "say \"hi\""));
  }

  @Test
  void readFileFindsFilesOnly() {
    try (DataRepository data = DataRepository.openOrInit(tmp.resolve("data.git"), BRANCH, sheets(), SYSTEM)) {
      assertThat(data.readFile(data.head(), ".gitsheets/people.toml")).isNotNull();
      assertThat(data.readFile(data.head(), ".gitsheets")).isNull();
      assertThat(data.readFile(data.head(), "people/nobody.toml")).isNull();
      assertThat(data.readFile(null, ".gitsheets/people.toml")).isNull();
    }
  }

  @Test
  void changedPathsListsAddedModifiedAndDeletedFiles() {
    try (DataRepository data = DataRepository.openOrInit(tmp.resolve("data.git"), BRANCH, sheets(), SYSTEM);
        GitTreeWriter writer = new GitTreeWriter(data.repository(), BRANCH)) {
      ObjectId c1 = committed(writer.commit(data.head(), List.of(
          put("people/a.toml", "a"), put("people/b.toml", "b"), put("project-memberships/x/a.toml", "m")),
          AUTHOR, "one"));
      ObjectId c2 = committed(writer.commit(c1, List.of(
          put("people/a.toml", "a2"), PathChange.delete("project-memberships/x/a.toml"), put("people/c.toml", "c")),
          AUTHOR, "two"));

      assertThat(data.changedPaths(c1, c2))
          .containsExactly("people/a.toml", "people/c.toml", "project-memberships/x/a.toml");
      assertThat(data.changedPaths(c2, c1))
          .containsExactly("people/a.toml", "people/c.toml", "project-memberships/x/a.toml");
      assertThat(data.changedPaths(c2, c2)).isEmpty();
      assertThat(data.changedPaths(null, c1)).hasSize(5);
    }
  }

  /** 32,000 small records, packed as they are after the writer's periodic gc, load quickly. */
  @Test
  void readTreeLoadsThousandsOfFilesQuickly() {
    try (DataRepository data = DataRepository.openOrInit(tmp.resolve("data.git"), BRANCH, sheets(), SYSTEM);
        GitTreeWriter writer = new GitTreeWriter(data.repository(), BRANCH)) {
      List<PathChange> changes = new ArrayList<>();
      for (int i = 0; i < 32_000; i++) {
        String folder = i < 20_000 ? "people/" : "project-memberships/p" + (i % 400) + "/";
        changes.add(put(folder + "record-" + i + ".toml", "slug = 'record-" + i + "'\nname = 'Record " + i + "'\n"));
      }
      ObjectId head = committed(writer.commit(data.head(), changes, AUTHOR, "bulk"));
      writer.repackNow();

      int[] count = {0};
      long start = System.nanoTime();
      data.readTree(head, (path, bytes) -> count[0]++);
      long millis = (System.nanoTime() - start) / 1_000_000;

      System.out.println("readTree of " + count[0] + " files took " + millis + " ms");
      assertThat(count[0]).isEqualTo(32_002);
      assertThat(millis).isLessThan(5_000); // typically a few hundred ms; generous for slow CI
    }
  }

  // ------------------------------------------------------------------ helpers

  private static PathChange put(String path, String content) {
    return PathChange.put(path, content.getBytes(UTF_8));
  }

  private static ObjectId committed(CommitResult result) {
    assertThat(result).isInstanceOf(CommitResult.Committed.class);
    return ((CommitResult.Committed) result).commit();
  }

  private static RevCommit parse(DataRepository data, ObjectId commit) throws Exception {
    try (RevWalk walk = new RevWalk(data.repository())) {
      return walk.parseCommit(commit);
    }
  }

  private static Map<String, String> contents(DataRepository data, ObjectId commit) {
    Map<String, String> files = new TreeMap<>();
    data.readTree(commit, (path, bytes) -> files.put(path, new String(bytes, UTF_8)));
    return files;
  }
}
