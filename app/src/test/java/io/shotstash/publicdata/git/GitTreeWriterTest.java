package io.shotstash.publicdata.git;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.internal.storage.file.PackIndex;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitTreeWriterTest {

  private static final String BRANCH = "published";
  /** The author of every test commit in this package. */
  static final PersonIdent AUTHOR =
      new PersonIdent("Shotstash Test", "test@shotstash.invalid", Instant.parse("2024-05-01T10:00:00Z"),
          ZoneOffset.UTC);

  @TempDir
  Path tmp;

  private Path gitDir;
  private Repository repo;
  private GitTreeWriter writer;

  @BeforeEach
  void setUp() throws Exception {
    gitDir = tmp.resolve("data.git");
    Git.init().setBare(true).setDirectory(gitDir.toFile()).setInitialBranch(BRANCH).call().close();
    repo = new FileRepositoryBuilder().setGitDir(gitDir.toFile()).setMustExist(true).build();
    writer = new GitTreeWriter(repo, BRANCH);
  }

  @AfterEach
  void tearDown() {
    writer.close();
    repo.close();
  }

  // ------------------------------------------------------------------ basics

  @Test
  void firstCommitOnUnbornBranch() throws Exception {
    assertThat(writer.head()).isNull();
    String message = "people: add jane\n\nBody line.\n";

    CommitResult result = writer.commit(null, List.of(put("people/jane.toml", "name = 'Jane'\n")), AUTHOR, message);

    assertThat(result).isInstanceOf(CommitResult.Committed.class);
    CommitResult.Committed committed = (CommitResult.Committed) result;
    assertThat(committed.parent()).isNull();
    assertThat(writer.head()).isEqualTo(committed.commit());
    RevCommit commit = parse(committed.commit());
    assertThat(commit.getParentCount()).isZero();
    assertThat(commit.getFullMessage()).isEqualTo(message);
    assertThat(commit.getAuthorIdent()).isEqualTo(AUTHOR);
    assertThat(commit.getCommitterIdent()).isEqualTo(AUTHOR);
    assertThat(files(committed.commit())).containsExactly(Map.entry("people/jane.toml", "name = 'Jane'\n"));
  }

  @Test
  void putReplaceAndDeleteInNestedFolders() {
    ObjectId c1 = commit(null,
        put("people/jane.toml", "jane"),
        put("person-evaluations/jane/2024.toml", "good"),
        put("person-evaluations/jane/2023.toml", "fine"));
    ObjectId c2 = commit(c1, put("person-evaluations/jane/2024.toml", "great"));
    ObjectId c3 = commit(c2, delete("person-evaluations/jane/2023.toml"), put("a/b/c/d.toml", "deep"));

    assertThat(files(c1)).containsOnly(
        Map.entry("people/jane.toml", "jane"),
        Map.entry("person-evaluations/jane/2023.toml", "fine"),
        Map.entry("person-evaluations/jane/2024.toml", "good"));
    assertThat(files(c2)).containsEntry("person-evaluations/jane/2024.toml", "great").hasSize(3);
    assertThat(files(c3)).containsOnly(
        Map.entry("a/b/c/d.toml", "deep"),
        Map.entry("people/jane.toml", "jane"),
        Map.entry("person-evaluations/jane/2024.toml", "great"));
    assertThat(parse(c3).getParent(0)).isEqualTo(c2);
    assertTreeMatchesDirCache(c3);
  }

  @Test
  void severalChangesInOneFolderMakeOneCommit() {
    ObjectId c1 = commit(null, put("people/a.toml", "a"), put("people/b.toml", "b"), put("people/c.toml", "c"));

    ObjectId c2 = commit(c1,
        put("people/b.toml", "b2"),
        delete("people/c.toml"),
        put("people/a-b.toml", "ab"),
        put("people/a/notes.toml", "notes"),
        put("people/0.toml", "zero"));

    assertThat(parse(c2).getParent(0)).isEqualTo(c1);
    assertThat(files(c2)).containsOnly(
        Map.entry("people/0.toml", "zero"),
        Map.entry("people/a-b.toml", "ab"),
        Map.entry("people/a.toml", "a"),
        Map.entry("people/a/notes.toml", "notes"),
        Map.entry("people/b.toml", "b2"));
    assertTreeMatchesDirCache(c2);
  }

  @Test
  void laterChangeToTheSamePathWins() {
    ObjectId c1 = commit(null, put("people/a.toml", "first"), put("people/a.toml", "second"));
    assertThat(files(c1)).containsExactly(Map.entry("people/a.toml", "second"));

    CommitResult putThenDelete = writer.commit(c1,
        List.of(put("people/b.toml", "b"), delete("people/b.toml")), AUTHOR, "net zero");
    assertThat(putThenDelete).isEqualTo(new CommitResult.NoChange());
  }

  @Test
  void deletingTheLastFileRemovesTheFolders() throws Exception {
    ObjectId c1 = commit(null, put("people/a.toml", "a"), put("person-evaluations/jane/2024.toml", "x"));

    ObjectId c2 = commit(c1, delete("person-evaluations/jane/2024.toml"));
    assertThat(files(c2)).containsExactly(Map.entry("people/a.toml", "a"));
    assertThat(topLevelNames(c2)).containsExactly("people"); // no empty person-evaluations tree
    assertTreeMatchesDirCache(c2);

    ObjectId c3 = commit(c2, delete("people/a.toml"));
    assertThat(files(c3)).isEmpty();
    assertThat(parse(c3).getTree().getId()).isEqualTo(ObjectId.fromString("4b825dc642cb6eb9a060e54bf8d69288fbee4904"));
  }

  @Test
  void identicalContentIsNoChange() {
    ObjectId c1 = commit(null, put("people/a.toml", "a"), put("people/b.toml", "b"));

    CommitResult same = writer.commit(c1, List.of(put("people/a.toml", "a")), AUTHOR, "same");
    CommitResult missingDelete = writer.commit(c1,
        List.of(delete("people/zzz.toml"), delete("nowhere/x.toml"), delete("people/a.toml/x")), AUTHOR, "noop");
    CommitResult emptyList = writer.commit(c1, List.of(), AUTHOR, "empty");

    assertThat(same).isEqualTo(new CommitResult.NoChange());
    assertThat(missingDelete).isEqualTo(new CommitResult.NoChange());
    assertThat(emptyList).isEqualTo(new CommitResult.NoChange());
    assertThat(writer.head()).isEqualTo(c1);
  }

  @Test
  void deletesOnAnUnbornBranchAreNoChange() {
    assertThat(writer.commit(null, List.of(delete("people/a.toml")), AUTHOR, "noop"))
        .isEqualTo(new CommitResult.NoChange());
    assertThat(writer.head()).isNull();
  }

  @Test
  void staleExpectedParentIsConflict() {
    ObjectId c1 = commit(null, put("people/a.toml", "a"));
    ObjectId c2 = commit(c1, put("people/b.toml", "b"));

    assertThat(writer.commit(c1, List.of(put("people/c.toml", "c")), AUTHOR, "stale"))
        .isEqualTo(new CommitResult.Conflict(c2));
    assertThat(writer.commit(null, List.of(put("people/c.toml", "c")), AUTHOR, "thinks unborn"))
        .isEqualTo(new CommitResult.Conflict(c2));
    assertThat(writer.head()).isEqualTo(c2);
  }

  @Test
  void lockedBranchIsConflictAndMovesNothing() throws Exception {
    ObjectId c1 = commit(null, put("people/a.toml", "a"));
    // Another process holding the ref lock makes JGit's CAS fail with LOCK_FAILURE.
    Path lock = Files.createFile(gitDir.resolve("refs/heads/" + BRANCH + ".lock"));

    CommitResult result = writer.commit(c1, List.of(put("people/b.toml", "b")), AUTHOR, "while locked");

    assertThat(result).isEqualTo(new CommitResult.Conflict(c1)); // head did not move: caller may retry
    assertThat(writer.moveBranch(c1, c1)).isFalse();
    Files.delete(lock);
    assertThat(writer.head()).isEqualTo(c1);
    assertThat(writer.commit(c1, List.of(put("people/b.toml", "b")), AUTHOR, "retry"))
        .isInstanceOf(CommitResult.Committed.class);
  }

  @Test
  void expectingACommitOnAnUnbornBranchIsConflict() {
    ObjectId somewhere = ObjectId.fromString("0123456789012345678901234567890123456789");
    assertThat(writer.commit(somewhere, List.of(put("a.toml", "a")), AUTHOR, "x"))
        .isEqualTo(new CommitResult.Conflict(null));
    assertThat(writer.head()).isNull();
  }

  @Test
  void moveBranchIsCompareAndSet() {
    ObjectId c1 = commit(null, put("people/a.toml", "a"));
    ObjectId c2 = commit(c1, put("people/b.toml", "b"));

    assertThat(writer.moveBranch(c2, c1)).isTrue(); // backwards, not a fast-forward
    assertThat(writer.head()).isEqualTo(c1);
    assertThat(writer.moveBranch(c2, c1)).isFalse(); // branch is no longer at c2
    assertThat(writer.moveBranch(null, c2)).isFalse(); // branch is not unborn
    assertThat(writer.head()).isEqualTo(c1);
    assertThat(writer.moveBranch(c1, c2)).isTrue();
    assertThat(writer.head()).isEqualTo(c2);
  }

  @Test
  void onlyTheTreesOnTheChangedPathAreWritten() throws Exception {
    List<PathChange> initial = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      initial.add(put("people/p" + i + ".toml", "person " + i));
      initial.add(put("person-evaluations/p" + i + "/2024.toml", "eval " + i));
    }
    ObjectId c1 = commitAll(null, initial);
    long before = looseObjectCount();

    commit(c1, put("people/p7.toml", "changed"));

    // blob + people tree + root tree + commit; no person-evaluations tree was rebuilt
    assertThat(looseObjectCount() - before).isEqualTo(4);
  }

  @Test
  void bulkCommitWritesOnePackInsteadOfLooseObjects() throws Exception {
    TreeMap<String, byte[]> model = new TreeMap<>();
    List<PathChange> changes = new ArrayList<>();
    for (int i = 0; i < GitTreeWriter.BULK_CHANGES + 500; i++) {
      String path = (i % 3 == 0 ? "people/" : "person-evaluations/p" + (i % 40) + "/") + "r" + i + ".toml";
      byte[] content = ("n = " + i + "\n").getBytes(UTF_8);
      model.put(path, content);
      changes.add(PathChange.put(path, content));
    }

    ObjectId c1 = commitAll(null, changes);

    assertThat(looseObjectCount()).isZero();
    assertThat(packCount()).isEqualTo(1);
    assertThat(parse(c1).getTree().getId()).isEqualTo(dirCacheTree(model));
    assertThat(files(c1)).hasSize(model.size()).containsEntry("people/r0.toml", "n = 0\n");
    // The same bulk again changes nothing: no commit, and no second pack left behind.
    assertThat(writer.commit(c1, changes, AUTHOR, "again")).isEqualTo(new CommitResult.NoChange());
    assertThat(packCount()).isEqualTo(1);
    // Small commits on top go back to loose objects and read the packed trees fine.
    ObjectId c2 = commit(c1, put("people/r0.toml", "changed"));
    assertThat(files(c2)).containsEntry("people/r0.toml", "changed").hasSize(model.size());
  }

  @Test
  void fileAndFolderOfTheSameNameAreRejected() {
    ObjectId c1 = commit(null, put("people/a", "a file"), put("people/b/c.toml", "c"));

    assertThatThrownBy(() -> writer.commit(c1, List.of(put("people/a/x.toml", "x")), AUTHOR, "clash"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> writer.commit(c1, List.of(put("people/b", "b")), AUTHOR, "clash"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> writer.commit(c1, List.of(put("x/y", "1"), put("x/y/z", "2")), AUTHOR, "clash"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(writer.head()).isEqualTo(c1);
    // Deleting a "file" where a folder is, or below a file, removes nothing.
    assertThat(writer.commit(c1, List.of(delete("people/b"), delete("people/a/x.toml")), AUTHOR, "noop"))
        .isEqualTo(new CommitResult.NoChange());
  }

  @Test
  void invalidPathsAreRejected() {
    for (String bad : List.of("", "/a.toml", "a//b.toml", "a/", "./a.toml", "a/../b.toml", "a/./b",
        "a\0b", ".git/config", "x/.GIT/y")) {
      assertThatThrownBy(() -> PathChange.delete(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> PathChange.put("a.toml", null)).isInstanceOf(NullPointerException.class);
    assertThat(PathChange.put(".gitsheets/people.toml", new byte[0]).isDelete()).isFalse();
    assertThat(PathChange.delete("a..b/c.toml").isDelete()).isTrue();
    assertThat(PathChange.put("a", "x".getBytes(UTF_8))).isEqualTo(PathChange.put("a", "x".getBytes(UTF_8)));
  }

  @Test
  void gitOrderSortsTreesAsIfTheirNameEndedWithSlash() {
    assertThat(compare("a.toml", false, "a", true)).isNegative(); // '.' < '/'
    assertThat(compare("a", true, "a0.toml", false)).isNegative(); // '/' < '0'
    assertThat(compare("a", false, "a-b.toml", false)).isNegative(); // prefix first
    assertThat(compare("a", true, "a-b.toml", false)).isPositive(); // '/' > '-'
    assertThat(compare("a", false, "a", true)).isNegative();
    assertThat(compare("a", true, "a", true)).isZero();
    assertThat(compare("\u00e9", false, "z", false)).isPositive(); // unsigned bytes
  }

  @Test
  void maybeRepackPacksEveryNCommits() throws Exception {
    try (GitTreeWriter everyThree = new GitTreeWriter(repo, BRANCH, 3)) {
      ObjectId head = null;
      for (int i = 0; i < 2; i++) {
        head = ((CommitResult.Committed) everyThree.commit(head, List.of(put("n/" + i + ".toml", "v" + i)), AUTHOR,
            "c" + i)).commit();
        everyThree.maybeRepack();
      }
      assertThat(packCount()).isZero();
      head = ((CommitResult.Committed) everyThree.commit(head, List.of(put("n/2.toml", "v2")), AUTHOR, "c2")).commit();
      everyThree.maybeRepack();

      assertThat(packCount()).isEqualTo(1);
      assertThat(looseObjectCount()).isZero();
      assertThat(everyThree.head()).isEqualTo(head);
      assertThat(files(head)).hasSize(3);
      // The writer keeps working on the packed repository.
      ObjectId next =
          ((CommitResult.Committed) everyThree.commit(head, List.of(delete("n/0.toml")), AUTHOR, "c3")).commit();
      assertThat(files(next)).hasSize(2);
    }
  }

  @Test
  void repacksMergeLikeABinaryCounterAndGcOnceTheyHoldAsMuchAsTheBase() throws Exception {
    try (GitTreeWriter everyTwo = new GitTreeWriter(repo, BRANCH, 2)) {
      // a base of 100 records (and the trees and commits around them)
      List<PathChange> seed = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        seed.add(put("seed/" + i + ".toml", "s" + i));
      }
      ObjectId head = ((CommitResult.Committed) everyTwo.commit(null, seed, AUTHOR, "seed")).commit();
      head = ((CommitResult.Committed) everyTwo.commit(head, List.of(put("a/0.toml", "a0")), AUTHOR, "a0")).commit();
      everyTwo.maybeRepack(); // the first repack is a full gc
      assertThat(looseObjectCount()).isZero();
      long base = everyTwo.objectsInFullGc();
      assertThat(base).isEqualTo(100 + 2 + 1 + 4); // blobs, seed tree, root, commit; then a0's four
      // 8 objects a round; packs of 8, 16, 32, 64 objects like the bits of the round number
      int[] packsAfterRound = {1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3};
      Set<String> before = packIndexes();
      int round = 0;
      while (everyTwo.objectsPackedSinceFullGc() + 8 < base) {
        for (int i = 0; i < 2; i++) {
          head = ((CommitResult.Committed) everyTwo.commit(head, List.of(put("b/" + round + "-" + i + ".toml",
              "b" + round + i)), AUTHOR, "b" + round + i)).commit();
        }
        everyTwo.maybeRepack();
        round++;
        assertThat(looseObjectCount()).as("round %d", round).isZero();
        // per commit: its blob, the b tree, the root tree and the commit
        assertThat(everyTwo.objectsPackedSinceFullGc()).as("round %d", round).isEqualTo(8L * round);
        assertThat(everyTwo.packsSinceFullGc()).as("round %d", round).isEqualTo(packsAfterRound[round - 1]);
        Set<String> added = new HashSet<>(packIndexes());
        added.removeAll(before);
        // one pack a round: the round's objects alone, or merged with the newest packs
        assertThat(added).as("round %d", round).hasSize(1);
        for (String index : added) {
          // read-only for everyone, as git leaves its packs
          Path addedIndex = gitDir.resolve("objects/pack").resolve(index);
          assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(addedIndex))).isEqualTo("r--r--r--");
          Path addedPack = addedIndex.resolveSibling(index.replace(".idx", ".pack"));
          assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(addedPack))).isEqualTo("r--r--r--");
        }
        before = packIndexes(); // the packs a merge replaced stay on disk for an hour
      }
      assertThat(round).isEqualTo(13); // a 14th round of 8 reaches the base of 107
      // an hour later the replaced packs go, and everything still reads back
      everyTwo.deleteExpiredReplacedPacks(System.currentTimeMillis() + PackMaintenance.REPLACED_PACK_EXPIRE_MILLIS + 1);
      assertThat(packIndexes()).hasSize(1 + packsAfterRound[round - 1]);
      assertThat(packCount()).isEqualTo(1 + packsAfterRound[round - 1]);
      assertThat(files(head)).hasSize(101 + 2 * round);
      // the round whose packs reach the base's size runs a full gc: one pack holds everything
      for (int i = 0; i < 2; i++) {
        head =
            ((CommitResult.Committed) everyTwo.commit(head, List.of(put("c/" + i + ".toml", "c" + i)), AUTHOR, "c" + i))
                .commit();
      }
      everyTwo.maybeRepack();
      assertThat(everyTwo.packsSinceFullGc()).isZero();
      assertThat(everyTwo.objectsInFullGc()).isEqualTo(base + 8L * (round + 1));
      assertThat(looseObjectCount()).isZero();
      assertThat(files(head)).hasSize(103 + 2 * round);
      try (Git git = Git.wrap(repo)) {
        assertThat(git.log().add(head).call()).hasSize(2 + 2 * (round + 1));
      }
      assertFsckStrictPasses();
    }
  }

  private Set<String> packIndexes() {
    String[] names = gitDir.resolve("objects/pack").toFile().list((dir, name) -> name.endsWith(".idx"));
    return names == null ? Set.of() : new HashSet<>(Arrays.asList(names));
  }

  @Test
  void closedWriterRefusesToWrite() {
    writer.close();
    assertThatThrownBy(() -> writer.commit(null, List.of(), AUTHOR, "x")).isInstanceOf(IllegalStateException.class);
  }

  // ------------------------------------------------------------------ equivalence with DirCache

  /**
   * Random puts and deletes, checked after every commit against the tree JGit's DirCache builds
   * from scratch for the same set of files: same ids means same bytes, git order included.
   */
  @Test
  void splicedTreesEqualTreesBuiltFromScratch() throws Exception {
    Random random = new Random(20240501L);
    List<String> universe = pathUniverse();
    TreeMap<String, byte[]> model = new TreeMap<>();
    List<PathChange> initial = new ArrayList<>();
    for (String path : universe) {
      if (path.matches("people/\\d+\\.toml") || random.nextBoolean()) {
        byte[] content = randomContent(random);
        model.put(path, content);
        initial.add(PathChange.put(path, content));
      }
    }
    ObjectId head = commitAll(null, initial);
    assertThat(files(head).keySet()).filteredOn(p -> p.startsWith("people/")).hasSizeGreaterThan(2000);
    assertThat(parse(head).getTree().getId()).isEqualTo(dirCacheTree(model));

    int commits = 0;
    int noChanges = 0;
    for (int round = 0; round < 300; round++) {
      List<PathChange> changes = randomChanges(random, universe, model);
      ObjectId expectedTree = dirCacheTree(model);
      ObjectId parentTree = parse(head).getTree().getId();

      CommitResult result = writer.commit(head, changes, AUTHOR, "round " + round);

      if (expectedTree.equals(parentTree)) {
        assertThat(result).as("round %d", round).isEqualTo(new CommitResult.NoChange());
        assertThat(writer.head()).isEqualTo(head);
        noChanges++;
      } else {
        assertThat(result).as("round %d", round).isInstanceOf(CommitResult.Committed.class);
        head = ((CommitResult.Committed) result).commit();
        assertThat(parse(head).getTree().getId()).as("round %d: %s", round, changes).isEqualTo(expectedTree);
        commits++;
      }
    }
    assertThat(commits).isGreaterThan(250);
    assertThat(noChanges).isPositive();
    assertThat(files(head).keySet()).isEqualTo(model.keySet());

    if (gitCliAvailable()) {
      assertFsckStrictPasses();
    }
  }

  /**
   * Paths chosen to stress git order: a folder of 2,000+ files, folders named like prefixes of
   * files ({@code 12/} next to {@code 12.toml}, {@code 12-b.toml}, {@code 120.toml}), and a
   * root-level {@code people.toml} next to the {@code people} folder.
   */
  private static List<String> pathUniverse() {
    List<String> paths = new ArrayList<>();
    for (int n = 0; n < 2100; n++) {
      paths.add("people/" + n + ".toml");
    }
    for (int n = 0; n < 120; n++) {
      paths.add("people/" + n + "-b.toml");
      paths.add("people/" + n + ".x.toml");
      paths.add("people/" + n + "/notes.toml");
    }
    List<String> names = List.of("a", "a-b", "a.b", "a0", "ab", "a_b", "b", "A", "\u00e9");
    for (String first : names) {
      for (String second : names) {
        paths.add("person-evaluations/" + first + "/" + second + ".toml");
      }
      paths.add("person-evaluations/" + first + ".toml");
      paths.add("project-memberships/" + first + "/x/" + first + ".toml");
    }
    paths.addAll(List.of("people.toml", "people-x.toml", "peoplex/a.toml", "0.toml", ".gitsheets/people.toml"));
    return paths;
  }

  private static List<PathChange> randomChanges(Random random, List<String> universe, Map<String, byte[]> model) {
    List<PathChange> changes = new ArrayList<>();
    int count = 1 + random.nextInt(6);
    // Sometimes concentrate on one small folder so it empties out and comes back.
    String focus = random.nextInt(4) == 0 ? "person-evaluations/a" : null;
    for (int i = 0; i < count; i++) {
      String path = universe.get(random.nextInt(universe.size()));
      if (focus != null) {
        path = focus + "/" + List.of("a", "a-b", "a.b", "b").get(random.nextInt(4)) + ".toml";
      }
      if (random.nextInt(10) < 6) {
        byte[] content = randomContent(random);
        changes.add(PathChange.put(path, content));
        model.put(path, content);
      } else {
        changes.add(PathChange.delete(path));
        model.remove(path);
      }
    }
    return changes;
  }

  /** Few distinct contents, so re-putting identical bytes (and hence NoChange) happens. */
  private static byte[] randomContent(Random random) {
    return ("value = " + random.nextInt(5) + "\n").getBytes(UTF_8);
  }

  private ObjectId dirCacheTree(Map<String, byte[]> files) throws IOException {
    // Only compute ids: the reference trees never reach the repository.
    try (ObjectInserter formatter = new IdOnlyInserter()) {
      DirCache index = DirCache.newInCore();
      DirCacheBuilder builder = index.builder();
      files.forEach((path, content) -> {
        DirCacheEntry entry = new DirCacheEntry(path);
        entry.setFileMode(FileMode.REGULAR_FILE);
        entry.setObjectId(formatter.idFor(Constants.OBJ_BLOB, content));
        builder.add(entry);
      });
      builder.finish();
      return index.writeTree(formatter);
    }
  }

  /** An inserter that computes object ids and stores nothing. */
  private static final class IdOnlyInserter extends ObjectInserter.Formatter {
    @Override
    public ObjectId insert(int type, long length, InputStream in) throws IOException {
      return idFor(type, length, in);
    }
  }

  private void assertTreeMatchesDirCache(ObjectId commit) {
    try {
      TreeMap<String, byte[]> bytes = new TreeMap<>();
      files(commit).forEach((path, content) -> bytes.put(path, content.getBytes(UTF_8)));
      assertThat(parse(commit).getTree().getId()).isEqualTo(dirCacheTree(bytes));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static boolean gitCliAvailable() {
    try {
      Process process = new ProcessBuilder("git", "--version").redirectErrorStream(true).start();
      process.getInputStream().readAllBytes();
      return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void assertFsckStrictPasses() throws Exception {
    ProcessBuilder builder = new ProcessBuilder("git", "--git-dir=" + gitDir, "fsck", "--strict", "--no-progress")
        .redirectErrorStream(true);
    builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("git fsck --strict output:%n%s", output).isZero();
    System.out.println("git fsck --strict passed:\n" + output);
  }

  // ------------------------------------------------------------------ helpers

  private static PathChange put(String path, String content) {
    return PathChange.put(path, content.getBytes(UTF_8));
  }

  private static PathChange delete(String path) {
    return PathChange.delete(path);
  }

  private ObjectId commit(ObjectId parent, PathChange... changes) {
    return commitAll(parent, List.of(changes));
  }

  private ObjectId commitAll(ObjectId parent, List<PathChange> changes) {
    CommitResult result = writer.commit(parent, changes, AUTHOR, "test commit");
    assertThat(result).isInstanceOf(CommitResult.Committed.class);
    return ((CommitResult.Committed) result).commit();
  }

  private RevCommit parse(ObjectId commit) {
    try (RevWalk walk = new RevWalk(repo)) {
      return walk.parseCommit(commit);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private Map<String, String> files(ObjectId commit) {
    Map<String, String> files = new TreeMap<>();
    try (ObjectReader reader = repo.newObjectReader(); TreeWalk walk = new TreeWalk(reader)) {
      walk.addTree(parse(commit).getTree());
      walk.setRecursive(true);
      while (walk.next()) {
        files.put(walk.getPathString(), new String(reader.open(walk.getObjectId(0)).getBytes(), UTF_8));
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return files;
  }

  private List<String> topLevelNames(ObjectId commit) throws IOException {
    List<String> names = new ArrayList<>();
    try (TreeWalk walk = new TreeWalk(repo)) {
      walk.addTree(parse(commit).getTree());
      while (walk.next()) {
        names.add(walk.getPathString());
      }
    }
    return names;
  }

  private long looseObjectCount() throws IOException {
    try (Stream<Path> files = Files.walk(gitDir.resolve("objects"))) {
      return files.filter(Files::isRegularFile)
          .filter(p -> p.getParent().getFileName().toString().matches("[0-9a-f]{2}"))
          .count();
    }
  }

  private long packCount() {
    File[] packs = gitDir.resolve("objects/pack").toFile().listFiles((dir, name) -> name.endsWith(".pack"));
    return packs == null ? 0 : packs.length;
  }

  private static int compare(String a, boolean aTree, String b, boolean bTree) {
    byte[] x = a.getBytes(UTF_8);
    byte[] y = b.getBytes(UTF_8);
    return TreeSplice.compareGitOrder(x, 0, x.length, aTree, y, 0, y.length, bTree);
  }
}
