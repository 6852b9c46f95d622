package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Actor;
import io.shotstash.demo.DemoData;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.Attribution;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state snapshot: what it writes reads back as the same state as loading every file, a
 * snapshot behind the head is moved forward by the changed paths only, and one that cannot be used
 * (missing, of another format or build, cut short, of a commit the repository lacks) leaves the
 * full load to do the work.
 */
class StateSnapshotTest {
  private static final Instant NOW = Instant.parse("2026-11-01T12:00:00Z");
  private static final Attribution ATTRIBUTION = new Attribution("users.noreply.test");

  @TempDir
  Path tmp;

  private final TomlCodec codec = new TomlCodec();
  private final StateSnapshot snapshots = new StateSnapshot();
  private DataRepository repository;
  private GitTreeWriter git;
  private PublicStateLoader loader;
  private Path file;

  @BeforeEach
  void repositoryWithEverySheet() {
    repository = DataRepository.openOrInit(tmp.resolve("public.git"), "published", Sheet.templates(),
        ATTRIBUTION.ident(Actor.SYSTEM, NOW));
    git = new GitTreeWriter(repository.repository(), repository.branch());
    loader = new PublicStateLoader(repository, codec);
    file = tmp.resolve("public-state.snapshot");
    List<RecordChange> records = new ArrayList<>(new DemoData(7, NOW).build(40, Set.of()).records());
    records.add(RecordChange.put(Sheet.BLOG_POSTS, "hello", new BlogPost("bp-1", "hello", "Hello — ünïcödé", "id-x",
        NOW, "# Hi\n\nA body with +++ and \"quotes\".\n")));
    SpamPurge purge = new SpamPurge("sp-1", "id-gone", "gone", "Gone Person", 42L, "gone-gh", "agent-bot", "g-1",
        "Posted links", List.of("links"), List.of(new SpamPurge.Evidence("person", null, null, "gone", null, "bio",
            "people/gone.toml"),
            new SpamPurge.Evidence("project-update", "maps", 3, null, null, null,
                "project-updates/maps/3.toml")),
        "abc123", NOW, true, null, null);
    records.add(RecordChange.put(Sheet.SPAM_PURGES, purge.id(), purge));
    PersonEvaluation vote = new PersonEvaluation("gone", "agent-bot", "spam", "Links.", List.of("agent", "links"), 0.75,
        NOW.minusSeconds(60));
    records.add(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote));
    commit(records);
  }

  private ObjectId commit(List<RecordChange> records) {
    List<PathChange> paths = new ArrayList<>();
    for (RecordChange c : records) {
      paths.add(
          c.isDelete() ? PathChange.delete(c.path()) : PathChange.put(c.path(), codec.encode(c.sheet(), c.record())));
    }
    CommitResult result = git.commit(repository.head(), paths, ATTRIBUTION.ident(Actor.SYSTEM, NOW), "test: records\n");
    assertThat(result).isInstanceOf(CommitResult.Committed.class);
    return ((CommitResult.Committed) result).commit();
  }

  private static void assertSameState(PublicState actual, PublicState expected) {
    assertThat(actual.commit()).isEqualTo(expected.commit());
    assertThat(actual.records()).isEqualTo(expected.records());
    for (Sheet sheet : Sheet.values()) {
      assertThat(new ArrayList<>(actual.entries(sheet))).as(sheet.sheetName())
          .containsExactlyElementsOf(new ArrayList<>(expected.entries(sheet)));
    }
    // the indexes too
    for (Person p : expected.all(Sheet.PEOPLE, Person.class)) {
      assertThat(actual.personById(p.id())).contains(p);
      assertThat(actual.personBySlug(p.slug().toUpperCase())).contains(p);
    }
    assertThat(actual.find(Sheet.SPAM_PURGES, "githubUserId", "42", SpamPurge.class))
        .isEqualTo(expected.find(Sheet.SPAM_PURGES, "githubUserId", "42", SpamPurge.class));
  }

  @Test
  void aSnapshotReadsBackAsTheStateOfEveryFile() throws Exception {
    PublicState full = loader.loadHead();
    assertThat(full.size(Sheet.SPAM_PURGES)).isEqualTo(1);
    assertThat(full.size(Sheet.BLOG_POSTS)).isEqualTo(1);
    snapshots.write(file, full);
    assertThat(snapshots.holds(file, full.commit())).isTrue();

    PublicStateLoader.Loaded loaded = loader.loadHead(snapshots.load(file));
    assertThat(loaded.how()).isEqualTo("from the snapshot at the head");
    assertThat(loaded.snapshotIsCurrent()).isTrue();
    assertSameState(loaded.state(), full);
    SpamPurge purge = loaded.state().get(Sheet.SPAM_PURGES, "sp-1", SpamPurge.class);
    assertThat(purge.evidence()).hasSize(2);
    assertThat(purge.evidence().get(1).number()).isEqualTo(3);
  }

  @Test
  void aSnapshotBehindTheHeadIsMovedForwardByTheChangedPathsOnly() throws Exception {
    PublicState before = loader.loadHead();
    snapshots.write(file, before);
    Person someone = before.all(Sheet.PEOPLE, Person.class).get(0);
    Person edited = new Person(someone.id(), someone.legacyId(), someone.slug(), "Edited Name", someone.bio(),
        someone.avatarKey(), someone.accountLevel(), someone.agent(), someone.githubUserId(), someone.githubLogin(),
        someone.deletedAt(), someone.deactivatedBy(), someone.createdAt(), NOW);
    commit(
        List.of(RecordChange.put(Sheet.PEOPLE, edited.slug(), edited), RecordChange.delete(Sheet.BLOG_POSTS, "hello")));
    assertThat(snapshots.holds(file, repository.head().name())).isFalse();

    PublicStateLoader.Loaded loaded = loader.loadHead(snapshots.load(file));
    assertThat(loaded.how()).startsWith("from the snapshot at " + before.commit().substring(0, 12))
        .endsWith("and the 2 paths changed since");
    assertThat(loaded.snapshotIsCurrent()).isFalse();
    assertSameState(loaded.state(), loader.loadHead());
    assertThat(loaded.state().personById(someone.id()).orElseThrow().fullName()).isEqualTo("Edited Name");
  }

  @Test
  void noSnapshotMeansTheFullLoad() {
    PublicStateLoader.Loaded loaded = loader.loadHead(snapshots.load(file));
    assertThat(loaded.how()).startsWith("from every file (no snapshot at ");
    assertSameState(loaded.state(), loader.loadHead());
  }

  @Test
  void aSnapshotCutShortOrOfAnotherBuildIsNotUsed() throws Exception {
    PublicState full = loader.loadHead();
    snapshots.write(file, full);
    byte[] bytes = Files.readAllBytes(file);

    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 7));
    assertThat(snapshots.load(file).unusable()).startsWith("the snapshot cannot be read");
    assertSameState(loader.loadHead(snapshots.load(file)).state(), full);

    byte[] otherFormat = bytes.clone();
    int formatAt = "shotstash public-state snapshot\n".length();
    ByteBuffer.wrap(otherFormat).putInt(formatAt, StateSnapshot.FORMAT + 1);
    Files.write(file, otherFormat);
    assertThat(snapshots.load(file).unusable()).isEqualTo("the snapshot is of another format");
    assertThat(snapshots.holds(file, full.commit())).isFalse();

    byte[] otherBuild = bytes.clone();
    byte[] fingerprint = StateSnapshot.FINGERPRINT.getBytes(StandardCharsets.UTF_8);
    int fingerprintAt = formatAt + 4 + 4;
    otherBuild[fingerprintAt] = (byte) (fingerprint[0] == 'a' ? 'b' : 'a');
    Files.write(file, otherBuild);
    assertThat(snapshots.load(file).unusable())
        .isEqualTo("the snapshot was written by a build with other record classes");

    Files.writeString(file, "not a snapshot at all");
    assertThat(snapshots.load(file).unusable()).isNotNull();
    assertSameState(loader.loadHead(snapshots.load(file)).state(), full);
  }

  @Test
  void aSnapshotOfACommitThisRepositoryLacksIsNotUsed() throws Exception {
    PublicState full = loader.loadHead();
    PublicState foreign = PublicState.of("0123456789abcdef0123456789abcdef01234567", List.of());
    snapshots.write(file, foreign);
    PublicStateLoader.Loaded loaded = loader.loadHead(snapshots.load(file));
    assertThat(loaded.how()).startsWith("from every file (the snapshot's commit cannot be compared with the head");
    assertSameState(loaded.state(), full);
  }
}
