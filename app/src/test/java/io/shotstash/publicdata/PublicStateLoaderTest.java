package io.shotstash.publicdata;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectMembership;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads a repository built here with plain JGit (no GitTreeWriter): the gitsheets layout as another
 * tool would have written it.
 */
class PublicStateLoaderTest {
  private static final String BRANCH = "published";
  private static final PersonIdent IDENT =
      new PersonIdent("Tester", "tester@shotstash.invalid", Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  /** The sheet files this repository already carries, written differently from DataRepository's own. */
  private static final Map<String, String> OWN_SHEET_FILES = Map.of(
      ".gitsheets/people.toml", "# written by hand\n[gitsheet]\nroot = \"people\"\npath = \"${slug}\"\n",
      ".gitsheets/projects.toml", "[gitsheet]\nroot = 'projects'\npath = '${slug}'\n",
      ".gitsheets/project-memberships.toml",
      "[gitsheet]\nroot = 'project-memberships'\npath = '${projectSlug}/${personSlug}'\n",
      ".gitsheets/person-evaluations.toml",
      "[gitsheet]\nroot = 'person-evaluations'\npath = '${personSlug}/${evaluator}'\n");

  @TempDir
  Path tmp;

  /** The repository content: path → text. */
  private static TreeMap<String, String> initialFiles() {
    TreeMap<String, String> files = new TreeMap<>(OWN_SHEET_FILES);
    files.put("README.md", "# Public data\n\nNot a record.\n");
    files.put("people/ada.toml", "id = 'id-ada'\nslug = 'ada'\nfullName = 'Ada Lovelace'\n"
        + "accountLevel = 'administrator'\ncreatedAt = '2025-12-01T10:00:00.000Z'\n");
    files.put("people/bob.toml", "id = \"id-bob\"\nlegacyId = \"1234\"\nslug = \"bob\"\nfullName = \"Bob Smith\"\n"
        + "accountLevel = \"user\"\ngithubLogin = \"BobGH\"\n# a comment\nunknownKey = 1\n");
    files.put("people/cy.toml", "id = 'id-cy'\nslug = 'cy'\nfullName = 'Cy Young'\naccountLevel = 'user'\n"
        + "deletedAt = 2025-12-05T00:00:00Z\n");
    files.put("projects/maps.toml", "id = 'pr-maps'\nslug = 'maps'\ntitle = 'Open Maps'\nmaintainerId = 'id-ada'\n");
    files.put("projects/bus.toml", "id = 'pr-bus'\nslug = 'bus'\ntitle = 'Bus Times'\n");
    files.put("project-memberships/maps/ada.toml", membershipToml("pr-maps", "maps", "id-ada", "ada", true));
    files.put("project-memberships/maps/bob.toml", membershipToml("pr-maps", "maps", "id-bob", "bob", false));
    files.put("project-memberships/bus/ada.toml", membershipToml("pr-bus", "bus", "id-ada", "ada", false));
    files.put("person-evaluations/bob/human-ada.toml", "personSlug = 'bob'\nevaluator = 'human-ada'\n"
        + "verdict = 'spam'\nflags = ['links']\nevaluatedAt = '2026-01-01T00:00:00Z'\n");
    files.put("person-evaluations/bob/human-cy.toml", "personSlug = 'bob'\nevaluator = 'human-cy'\nverdict = 'ok'\n");
    return files;
  }

  private static String membershipToml(String projectId, String projectSlug, String personId, String personSlug,
      boolean maintainer) {
    return "projectId = '" + projectId + "'\npersonId = '" + personId + "'\nprojectSlug = '" + projectSlug + "'\n"
        + "personSlug = '" + personSlug + "'\nisMaintainer = " + maintainer + "\n";
  }

  // ---- building repositories with plain JGit ----

  /** Creates a bare repository whose branch holds one commit with {@code files}. */
  private ObjectId createBareRepository(Path dir, Map<String, String> files) throws Exception {
    try (Git git = Git.init().setBare(true).setDirectory(dir.toFile()).setInitialBranch(BRANCH).call()) {
      return commitFiles(git.getRepository(), null, files, "import from elsewhere");
    }
  }

  /** Commits exactly {@code files} (a whole tree) on the branch, on top of {@code parent}. */
  private static ObjectId commitFiles(Repository repo, ObjectId parent, Map<String, String> files, String message)
      throws IOException {
    try (ObjectInserter inserter = repo.newObjectInserter()) {
      DirCache index = DirCache.newInCore();
      DirCacheBuilder builder = index.builder();
      for (Map.Entry<String, String> file : new TreeMap<>(files).entrySet()) {
        DirCacheEntry entry = new DirCacheEntry(file.getKey());
        entry.setFileMode(FileMode.REGULAR_FILE);
        entry.setObjectId(inserter.insert(Constants.OBJ_BLOB, file.getValue().getBytes(UTF_8)));
        builder.add(entry);
      }
      builder.finish();
      CommitBuilder commit = new CommitBuilder();
      commit.setTreeId(index.writeTree(inserter));
      if (parent != null) {
        commit.setParentId(parent);
      }
      commit.setAuthor(IDENT);
      commit.setCommitter(IDENT);
      commit.setMessage(message);
      ObjectId id = inserter.insert(commit);
      inserter.flush();

      RefUpdate update = repo.updateRef(Constants.R_HEADS + BRANCH);
      update.setNewObjectId(id);
      update.setExpectedOldObjectId(parent == null ? ObjectId.zeroId() : parent);
      RefUpdate.Result result = update.update();
      assertThat(result).isIn(RefUpdate.Result.NEW, RefUpdate.Result.FAST_FORWARD);
      return id;
    }
  }

  /** Every blob of a commit: path → blob id. */
  private static Map<String, ObjectId> blobs(Repository repo, ObjectId commit) throws IOException {
    Map<String, ObjectId> out = new TreeMap<>();
    try (RevWalk walk = new RevWalk(repo); TreeWalk tree = new TreeWalk(repo)) {
      tree.addTree(walk.parseCommit(commit).getTree());
      tree.setRecursive(true);
      while (tree.next()) {
        out.put(tree.getPathString(), tree.getObjectId(0));
      }
    }
    return out;
  }

  private static DataRepository open(Path dir) {
    return DataRepository.openOrInit(dir, BRANCH, Sheet.templates(), IDENT);
  }

  /** The repository of {@link #initialFiles()}, imported into tmp and opened. */
  private DataRepository openInitial() throws Exception {
    Path dir = tmp.resolve("public.git");
    createBareRepository(dir, initialFiles());
    return open(dir);
  }

  // ---- opening ----

  @Test
  void openingAddsOnlyTheMissingSheetFilesAndRewritesNothing() throws Exception {
    Path dir = tmp.resolve("public.git");
    ObjectId imported = createBareRepository(dir, initialFiles());

    ObjectId opened;
    try (DataRepository data = open(dir)) {
      ObjectId head = data.head();
      opened = head;
      assertThat(head).isNotEqualTo(imported);
      RevCommit added;
      try (RevWalk walk = new RevWalk(data.repository())) {
        added = walk.parseCommit(head);
      }
      assertThat(added.getParents()).extracting(RevCommit::getId).containsExactly(imported);

      Map<String, ObjectId> before = blobs(data.repository(), imported);
      Map<String, ObjectId> after = blobs(data.repository(), head);
      assertThat(after).containsAllEntriesOf(before);
      Set<String> newPaths = new HashSet<>(after.keySet());
      newPaths.removeAll(before.keySet());
      Set<String> expected = new HashSet<>();
      for (Sheet s : Sheet.values()) {
        String path = ".gitsheets/" + s.sheetName() + ".toml";
        if (!OWN_SHEET_FILES.containsKey(path)) {
          expected.add(path);
        }
      }
      assertThat(newPaths).isEqualTo(expected).hasSize(Sheet.values().length - OWN_SHEET_FILES.size());
      assertThat(new String(data.readFile(head, ".gitsheets/people.toml"), UTF_8))
          .isEqualTo(OWN_SHEET_FILES.get(".gitsheets/people.toml"));
      assertThat(data.readSheetTemplates(head)).isEqualTo(Sheet.templates());
    }

    try (DataRepository again = open(dir)) {
      assertThat(again.head()).as("reopening commits nothing").isEqualTo(opened);
    }
  }

  // ---- loading ----

  @Test
  void loadHeadReadsEveryRecordAndBuildsTheIndexes() throws Exception {
    try (DataRepository data = openInitial()) {
      PublicState state = new PublicStateLoader(data, new TomlCodec()).loadHead();
      assertThat(state.commit()).isEqualTo(data.head().name());

      assertThat(state.keys(Sheet.PEOPLE)).containsExactlyInAnyOrder("ada", "bob", "cy");
      assertThat(state.keys(Sheet.PROJECTS)).containsExactlyInAnyOrder("maps", "bus");
      assertThat(state.keys(Sheet.PROJECT_MEMBERSHIPS)).containsExactlyInAnyOrder("maps/ada", "maps/bob", "bus/ada");
      assertThat(state.keys(Sheet.PERSON_EVALUATIONS)).containsExactlyInAnyOrder("bob/human-ada", "bob/human-cy");
      for (Sheet s : Sheet.values()) {
        if (s != Sheet.PEOPLE && s != Sheet.PROJECTS && s != Sheet.PROJECT_MEMBERSHIPS
            && s != Sheet.PERSON_EVALUATIONS) {
          assertThat(state.size(s)).as(s.sheetName()).isZero();
        }
      }

      Person ada = state.get(Sheet.PEOPLE, "ada", Person.class);
      assertThat(ada.fullName()).isEqualTo("Ada Lovelace");
      assertThat(ada.level()).isEqualTo(AccountLevel.ADMINISTRATOR);
      assertThat(ada.createdAt()).isEqualTo(Instant.parse("2025-12-01T10:00:00Z"));
      Person bob = state.get(Sheet.PEOPLE, "bob", Person.class);
      assertThat(bob.legacyId()).isEqualTo("1234");
      assertThat(bob.githubLogin()).isEqualTo("BobGH");
      assertThat(state.get(Sheet.PEOPLE, "cy", Person.class).isDeactivated()).isTrue();
      assertThat(state.get(Sheet.PROJECTS, "maps", Project.class).maintainerId()).isEqualTo("id-ada");
      assertThat(state.get(Sheet.PROJECT_MEMBERSHIPS, "maps/ada", ProjectMembership.class).isMaintainer()).isTrue();
      assertThat(state.get(Sheet.PERSON_EVALUATIONS, "bob/human-ada", PersonEvaluation.class).flags())
          .containsExactly("links");

      assertThat(state.personBySlug("ADA")).contains(ada);
      assertThat(state.personById("id-bob")).contains(bob);
      assertThat(state.findOne(Sheet.PEOPLE, "githubLogin", "bobgh", Person.class)).contains(bob);
      assertThat(state.hasActiveAdministrator()).isTrue();
      assertThat(state.countActive(AccountLevel.USER)).isEqualTo(1); // cy is deactivated
      assertThat(state.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", "id-ada"))
          .containsExactlyInAnyOrder("maps/ada", "bus/ada");
      assertThat(state.findKeys(Sheet.PROJECT_MEMBERSHIPS, "projectId", "pr-maps"))
          .containsExactlyInAnyOrder("maps/ada", "maps/bob");
      assertThat(state.find(Sheet.PERSON_EVALUATIONS, "personSlug", "bob", PersonEvaluation.class))
          .extracting(PersonEvaluation::evaluator).containsExactlyInAnyOrder("human-ada", "human-cy");
      assertThat(state.findKeys(Sheet.PROJECTS, "slug", "maps")).containsExactly("maps");
    }
  }

  @Test
  void loadHeadOfAFreshRepositoryIsEmptyButAtTheSetupCommit() {
    try (DataRepository data = open(tmp.resolve("fresh.git"))) {
      PublicState state = new PublicStateLoader(data, new TomlCodec()).loadHead();
      assertThat(state.commit()).isEqualTo(data.head().name());
      for (Sheet s : Sheet.values()) {
        assertThat(state.size(s)).isZero();
      }
    }
  }

  @Test
  void catchUpReadsLaterCommitsAndEqualsAFreshLoad() throws Exception {
    try (DataRepository data = openInitial()) {
      PublicStateLoader loader = new PublicStateLoader(data, new TomlCodec());
      PublicState old = loader.loadHead();
      Repository repo = data.repository();

      // the whole tree as it is now, including the sheet files openOrInit added
      TreeMap<String, String> files = new TreeMap<>();
      data.readTree(data.head(), (path, bytes) -> files.put(path, new String(bytes, UTF_8)));
      files.put("people/bob.toml", "id = 'id-bob'\nlegacyId = '1234'\nslug = 'bob'\nfullName = 'Robert Smith'\n"
          + "accountLevel = 'administrator'\n");
      ObjectId second = commitFiles(repo, data.head(), files, "bob: PATCH /api/people/bob");
      files.remove("project-memberships/maps/bob.toml");
      ObjectId third = commitFiles(repo, second, files, "ada: DELETE /api/projects/maps/members/bob");
      assertThat(data.head()).isEqualTo(third);

      PublicState caught = loader.catchUp(old);
      PublicState fresh = loader.loadHead();

      assertThat(caught.commit()).isEqualTo(third.name()).isEqualTo(fresh.commit());
      assertSameContent(caught, fresh);
      assertThat(caught.personBySlug("bob")).map(Person::fullName).contains("Robert Smith");
      assertThat(caught.countActive(AccountLevel.ADMINISTRATOR)).isEqualTo(2);
      assertThat(caught.countActive(AccountLevel.USER)).isZero();
      assertThat(caught.findKeys(Sheet.PROJECT_MEMBERSHIPS, "personId", "id-bob")).isEmpty();
      assertThat(caught.findKeys(Sheet.PROJECT_MEMBERSHIPS, "projectId", "pr-maps")).containsExactly("maps/ada");

      // the old snapshot is untouched
      assertThat(old.personBySlug("bob")).map(Person::fullName).contains("Bob Smith");
      assertThat(old.keys(Sheet.PROJECT_MEMBERSHIPS)).contains("maps/bob");
    }
  }

  @Test
  void catchUpAtHeadReturnsTheSameStateAndFromEmptyLoadsEverything() throws Exception {
    try (DataRepository data = openInitial()) {
      PublicStateLoader loader = new PublicStateLoader(data, new TomlCodec());
      PublicState head = loader.loadHead();
      assertThat(loader.catchUp(head)).isSameAs(head);
      PublicState fromEmpty = loader.catchUp(PublicState.empty());
      assertThat(fromEmpty.commit()).isEqualTo(head.commit());
      assertSameContent(fromEmpty, head);
    }
  }

  @Test
  void aRecordWithBrokenTomlFailsTheLoadNamingItsPath() throws Exception {
    Path dir = tmp.resolve("public.git");
    TreeMap<String, String> files = initialFiles();
    files.put("people/broken.toml", "id = 'id-broken'\nslug = \n");
    createBareRepository(dir, files);
    try (DataRepository data = open(dir)) {
      PublicStateLoader loader = new PublicStateLoader(data, new TomlCodec());
      assertThatThrownBy(loader::loadHead)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("people/broken.toml");
    }
  }

  @Test
  void filesOutsideSheetsOrWithTheWrongExtensionAreNotRecords() {
    PublicStateLoader loader = new PublicStateLoader(null, new TomlCodec());
    byte[] bytes = "slug = 'x'\n".getBytes(UTF_8);
    assertThat(loader.toChange("README.md", bytes)).isNull();
    assertThat(loader.toChange(".gitsheets/people.toml", bytes)).isNull();
    assertThat(loader.toChange("people/README.md", bytes)).isNull();
    assertThat(loader.toChange("unknown-sheet/x.toml", bytes)).isNull();
    assertThat(loader.toChange("blog-posts/x.toml", bytes)).isNull();
    assertThat(loader.toChange("people/x.toml", bytes))
        .isEqualTo(RecordChange.put(Sheet.PEOPLE, "x", new Person(null, null, "x", null, null, null, null, null, null,
            null, null, null, null, null)));
    assertThat(loader.toChange("project-memberships/maps/ada.toml", null))
        .isEqualTo(RecordChange.delete(Sheet.PROJECT_MEMBERSHIPS, "maps/ada"));
  }

  /** Same keys, records and index entries on every sheet. */
  private static void assertSameContent(PublicState actual, PublicState expected) {
    for (Sheet sheet : Sheet.values()) {
      assertThat(actual.keys(sheet)).as(sheet.sheetName()).containsExactlyInAnyOrderElementsOf(expected.keys(sheet));
      for (String key : expected.keys(sheet)) {
        assertThat(actual.get(sheet, key, Object.class)).as(sheet.path(key))
            .isEqualTo(expected.get(sheet, key, Object.class));
      }
      for (Sheet.Index index : sheet.indexes()) {
        Set<String> values = new HashSet<>();
        for (PublicState s : new PublicState[]{actual, expected}) {
          for (String key : s.keys(sheet)) {
            values.add(index.key().apply(key, s.get(sheet, key, Object.class)));
          }
        }
        values.remove(null);
        for (String value : values) {
          assertThat(actual.findKeys(sheet, index.name(), value))
              .as("%s index %s = %s", sheet.sheetName(), index.name(), value)
              .containsExactlyInAnyOrderElementsOf(expected.findKeys(sheet, index.name(), value));
        }
      }
    }
  }
}
