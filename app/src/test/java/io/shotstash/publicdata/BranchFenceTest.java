package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.db.Database;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.shotstash.testing.WithGitWriter;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The branch fence (docs/public-data.md → The branch fence) with a real PostgreSQL, a real bare
 * repository and the real writer: a writer frozen inside a branch update, taken for dead, that wakes
 * and finishes its update loses nothing that was accepted meanwhile; a writer whose transaction idles
 * past the limit commits nothing; a branch left behind its recorded head is moved on; a commit pushed
 * by hand on top is taken in. A frozen writer is played at the level it acts on: its own
 * PostgreSQL session holding the fence's row, or the branch's lock file holding its new commit.
 */
class BranchFenceTest extends WithGitWriter {
  static final Duration IDLE_LIMIT = Duration.ofMillis(1_500);

  String writer;

  @BeforeEach
  void start() {
    deployWriter();
  }

  void deployWriter() {
    WriteHandler put = WriteHandler.of("test.put",
        (ctx, cmd) -> Future.succeededFuture(GitWriterTest.putPerson(ctx, cmd, null)));
    WriteHandler slow = WriteHandler.of("test.slow", (ctx, cmd) -> {
      Promise<WritePlan> later = Promise.promise();
      vertx.setTimer(IDLE_LIMIT.toMillis() * 3, id -> later.complete(GitWriterTest.putPerson(ctx, cmd, null)));
      return later.future();
    });
    writer = vertx.deployVerticle(newWriter(List.of(put, slow)).fenceIdleTimeout(IDLE_LIMIT)).await();
  }

  Future<JsonObject> send(String action, String slug) {
    return writes.write(new WriteCommand(action, GitWriterTest.ALICE, "POST", "/api/test/" + slug,
        new JsonObject().put("slug", slug)));
  }

  String recordedHead() {
    return db.text("SELECT commit_id FROM public_data_head WHERE branch = 'refs/heads/" + BRANCH + "'");
  }

  boolean inBranch(String slug) {
    return repository.readFile(repository.head(), "people/" + slug + ".toml") != null;
  }

  /** A commit adding {@code slug} on top of {@code parent}, written but not on the branch. */
  ObjectId commitBeside(ObjectId parent, String slug) {
    Instant created = Instant.parse("2026-01-01T00:00:00Z");
    Person p = new Person(UUID.nameUUIDFromBytes(slug.getBytes(StandardCharsets.UTF_8)).toString(), null, slug, slug,
        null, null, "user", null, null, null, null, null, created, created);
    return git.write(parent, List.of(PathChange.put("people/" + slug + ".toml", codec.encode(Sheet.PEOPLE, p))),
        attribution.ident(Actor.SYSTEM, Instant.now()), "system: " + slug + "\n");
  }

  static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  // ---- the tests ----

  @Test
  void theWriterRecordsEachCommitAndTheBranchFollows() {
    assertThat(recordedHead()).as("made at start from the branch").isEqualTo(repository.head().name());
    JsonObject reply = send("test.put", "ada").await();
    assertThat(reply.getString("commit")).isEqualTo(recordedHead()).isEqualTo(repository.head().name());
  }

  @Test
  void aWriterFrozenInItsTransactionHoldsTheFenceOnlyUntilPostgresqlEndsIt() throws Exception {
    send("test.put", "one").await();
    // The frozen writer: its transaction holds the fence's row, with the limit every writer sets.
    Connection frozen = Database.connect(db.url());
    frozen.setAutoCommit(false);
    try (Statement s = frozen.createStatement()) {
      s.execute("SELECT set_config('idle_in_transaction_session_timeout', '" + IDLE_LIMIT.toMillis() + "ms', true)");
      s.execute("SELECT commit_id FROM public_data_head WHERE branch = 'refs/heads/" + BRANCH + "' FOR UPDATE");
    }
    // The writer that took over waits for the row until PostgreSQL ends the frozen transaction.
    JsonObject two = send("test.put", "two").await();
    assertThat(recordedHead()).isEqualTo(two.getString("commit")).isEqualTo(repository.head().name());
    // When the frozen writer wakes, its transaction is gone: it can record nothing.
    Throwable woke = catchThrowable(() -> {
      try (Statement s = frozen.createStatement()) {
        s.execute("UPDATE public_data_head SET commit_id = repeat('a', 40)");
      }
      frozen.commit();
    });
    assertThat(woke).as("the frozen writer's session was ended").isNotNull();
    assertThat(recordedHead()).isEqualTo(two.getString("commit"));
    frozen.close();
  }

  @Test
  void aWriterTakingOverEndsAFrozenWritersTransactionAtOnce() throws Exception {
    send("test.put", "one").await();
    vertx.undeploy(writer).await();
    // A writer frozen in a write, on a node taken for dead: named as writers name their sessions
    // while in a write, holding the row, with an idle limit far longer than this test waits.
    Connection frozen = Database.connect(db.url());
    frozen.setAutoCommit(false);
    try (Statement s = frozen.createStatement()) {
      s.execute("SELECT set_config('application_name', 'shotstash git writer', true)");
      s.execute("SELECT commit_id FROM public_data_head WHERE branch = 'refs/heads/" + BRANCH + "' FOR UPDATE");
    }
    // The new writer's wait for the row gives up after 2 s (its limit 1.5 s + a third): it only
    // starts and takes the write because it ended the frozen transaction when it took over.
    deployWriter();
    JsonObject two = send("test.put", "two").await();
    assertThat(recordedHead()).isEqualTo(two.getString("commit"));
    assertThat(frozen.isValid(2)).as("the frozen writer's session was ended").isFalse();
    frozen.close();
  }

  @Test
  void aWriterFrozenInsideTheBranchUpdateThatWakesLosesNothingAccepted() throws Exception {
    send("test.put", "one").await();
    ObjectId one = repository.head();
    vertx.undeploy(writer).await();
    // The frozen writer had its write "late" committed (recorded in the fence) and was inside the
    // branch update, its lock file holding the new commit, when it froze 40 s ago.
    Path ref = repository.repository().getDirectory().toPath().resolve("refs/heads/" + BRANCH);
    Path lock = ref.resolveSibling(BRANCH + ".lock");
    ObjectId late = commitBeside(one, "late");
    db.execute("UPDATE public_data_head SET commit_id = '" + late.name() + "'");
    Files.writeString(lock, late.name() + "\n");
    assertThat(lock.toFile().setLastModified(System.currentTimeMillis() - 40_000)).isTrue();

    // The writer that takes over moves the branch to the fence (removing the stale lock file),
    // catches up, and takes writes.
    deployWriter();
    assertThat(repository.head()).isEqualTo(late);
    assertThat(holder.current().personBySlug("late")).isPresent();
    JsonObject two = send("test.put", "two").await();
    JsonObject three = send("test.put", "three").await();
    assertThat(two.getString("commit")).isNotEqualTo(three.getString("commit"));

    // The frozen writer wakes and finishes its update the way JGit's LockFile does: the lock file,
    // written again through the lock's path, renamed over the ref, moving the branch back to "late".
    Files.writeString(lock, late.name() + "\n");
    Files.move(lock, ref, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertThat(repository.head()).isEqualTo(late);

    // Within one fence check the branch is back where the fence says, and nothing was lost.
    await(() -> repository.head().name().equals(three.getString("commit")), "the branch put back");
    assertThat(recordedHead()).isEqualTo(three.getString("commit"));
    assertThat(holder.current().personBySlug("two")).isPresent();
    send("test.put", "four").await();
    for (String slug : List.of("one", "late", "two", "three", "four")) {
      assertThat(inBranch(slug)).as(slug).isTrue();
      assertThat(holder.current().personBySlug(slug)).as(slug).isPresent();
    }
    assertThat(repository.repository().parseCommit(repository.head()).getParent(0).name())
        .isEqualTo(three.getString("commit"));
  }

  @Test
  void aReplicaFollowsTheRecordedHeadNotABranchMovedByAWriterThatWoke() throws Exception {
    PublicStateHolder other = new PublicStateHolder(loader.loadHead());
    ReplicaVerticle replica = new ReplicaVerticle(other, loader, codec, "node-b", pool, BRANCH);
    vertx.deployVerticle(replica).await();
    send("test.put", "uma").await();
    ObjectId uma = repository.head();
    ObjectId zombie = commitBeside(repository.repository().parseCommit(uma).getParent(0), "zombie");
    git.moveBranch(uma, zombie); // what a woken writer's old update does to the ref file
    other.set(PublicState.empty()); // as if the replica had just joined, with the branch off the fence
    assertThat(replica.catchUp().await().commit()).isEqualTo(uma.name());
    assertThat(other.current().personBySlug("uma")).isPresent();
    assertThat(other.current().personBySlug("zombie")).isEmpty();
    await(() -> repository.head().equals(uma), "the writer's check puts the branch back");
  }

  @Test
  void aWriterWhoseTransactionIdlesPastTheLimitCommitsNothing() {
    ObjectId before = repository.head();
    Throwable failed = catchThrowable(() -> send("test.slow", "sloth").await());
    assertThat(ApiError.from(failed)).as("the database ended the session").isNotNull()
        .extracting(ApiError::status).isEqualTo(503);
    assertThat(repository.head()).isEqualTo(before);
    assertThat(recordedHead()).isEqualTo(before.name());
    assertThat(holder.current().personBySlug("sloth")).isEmpty();
    send("test.put", "next").await(); // the writer goes on
    assertThat(inBranch("next")).isTrue();
    assertThat(inBranch("sloth")).isFalse();
  }

  @Test
  void aBranchLeftBehindItsRecordedHeadIsMovedOnWhenAWriterStarts() throws Exception {
    send("test.put", "vera").await();
    ObjectId vera = repository.head();
    vertx.undeploy(writer).await();
    // a writer that stopped after its database commit and before moving the branch
    ObjectId recorded = commitBeside(vera, "walt");
    db.execute("UPDATE public_data_head SET commit_id = '" + recorded.name() + "'");
    assertThat(repository.head()).isEqualTo(vera);

    deployWriter();
    assertThat(repository.head()).isEqualTo(recorded);
    assertThat(holder.current().personBySlug("walt")).isPresent();
    send("test.put", "xena").await();
    assertThat(inBranch("walt")).isTrue();
    assertThat(inBranch("xena")).isTrue();
  }

  @Test
  void aCommitPushedByHandOnTopIsTakenInAndTheNextWriteBuildsOnIt() throws Exception {
    send("test.put", "yann").await();
    ObjectId pushed = commitBeside(repository.head(), "zoe");
    assertThat(git.advance(repository.head(), pushed, attribution.ident(Actor.SYSTEM, Instant.now()), "push"))
        .isTrue();
    await(() -> pushed.name().equals(recordedHead()), "the fence takes the push in");
    await(() -> holder.current().personBySlug("zoe").isPresent(), "the state has it");
    send("test.put", "abe").await();
    assertThat(repository.repository().parseCommit(repository.head()).getParent(0)).isEqualTo(pushed);
  }
}
