package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.shotstash.testing.WithGitWriter;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The git writer with a real PostgreSQL and a real bare repository: ordering under concurrency,
 * refusals and no-ops that leave no commit, a failing private step that leaves ref and state as
 * they were, trailers, and replicas that converge. The write rules here are small test rules
 * registered with the writer the way the application registers its own.
 */
class GitWriterTest extends WithGitWriter {
  static final Actor.Member ALICE = new Actor.Member(Ids.uuid7(), "alice", "Alice Example", AccountLevel.STAFF, null);

  @BeforeEach
  void start() {
    db.execute(
        "CREATE TABLE test_deferred (id int PRIMARY KEY, parent int REFERENCES test_deferred (id) DEFERRABLE INITIALLY DEFERRED)");
    vertx.deployVerticle(newWriter(testRules())).await();
  }

  // ---- the test rules ----

  List<WriteHandler> testRules() {
    return List.of(
        WriteHandler.of("test.put", (ctx, cmd) -> Future.succeededFuture(putPerson(ctx, cmd, tx -> tx
            .preparedQuery("INSERT INTO private_profiles (person_id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .execute(Tuple.of(UUID.randomUUID(), "secret-" + cmd.params().getString("slug") + "@private.example"))))),
        WriteHandler.of("test.refuse",
            (ctx, cmd) -> Future.failedFuture(ApiError.conflict("nope", "refused on purpose").toException())),
        WriteHandler.of("test.noop", (ctx, cmd) -> Future.succeededFuture(WritePlan.noChange(s -> new JsonObject()))),
        WriteHandler.of("test.private-fails", (ctx, cmd) -> Future.succeededFuture(putPerson(ctx, cmd,
            tx -> tx.query("INSERT INTO no_such_table VALUES (1)").execute()))),
        WriteHandler.of("test.commit-fails", (ctx, cmd) -> Future.succeededFuture(putPerson(ctx, cmd,
            tx -> tx.query("INSERT INTO test_deferred VALUES (1, 99)").execute()))));
  }

  /** Puts people/<slug>.toml; the person's id is stable per slug so a repeat is a no-op. */
  static WritePlan putPerson(WriteContext ctx, WriteCommand cmd,
      Function<io.vertx.sqlclient.SqlConnection, Future<?>> priv) {
    String slug = cmd.params().getString("slug");
    Instant created = Instant.parse("2026-01-01T00:00:00Z");
    Person p = new Person(UUID.nameUUIDFromBytes(slug.getBytes(StandardCharsets.UTF_8)).toString(), null, slug,
        cmd.params().getString("fullName", "Person " + slug), null, null, "user", null, null, null, null, null, created,
        created);
    CommitMessage message = Attribution.actorTrailers(
        Attribution.message(cmd, "test.put", "person", p.id(), p.slug()).body("put " + slug), cmd.actor()).build();
    return new WritePlan(List.of(RecordChange.put(Sheet.PEOPLE, slug, p)), priv, message,
        s -> new JsonObject().put("commit", s.commit()));
  }

  Future<JsonObject> send(String action, String slug) {
    return writes.write(
        new WriteCommand(action, ALICE, "POST", "/api/test/" + slug + "?x=1", new JsonObject().put("slug", slug)));
  }

  List<RevCommit> history() throws Exception {
    List<RevCommit> out = new ArrayList<>();
    try (Git git = new Git(repository.repository())) {
      git.log().add(repository.head()).call().forEach(out::add);
    }
    return out;
  }

  // ---- the tests ----

  @Test
  void twoHundredConcurrentWritesFromSeveralVerticlesAllLandInOneLinearHistory() throws Exception {
    ConcurrentLinkedQueue<String> committed = new ConcurrentLinkedQueue<>();
    List<Future<?>> senders = new ArrayList<>();
    for (int v = 0; v < 4; v++) {
      int verticle = v;
      senders.add(vertx.deployVerticle(new VerticleBase() {
        @Override
        public Future<?> start() {
          List<Future<JsonObject>> all = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            all.add(send("test.put", "p" + verticle + "-" + i).onSuccess(r -> committed.add(r.getString("commit"))));
          }
          return Future.all(all);
        }
      }));
    }
    Future.all(senders).await();

    assertThat(committed).hasSize(200).doesNotHaveDuplicates();
    List<RevCommit> log = history();
    assertThat(log).hasSize(201); // 200 writes + the initial commit
    for (RevCommit c : log.subList(0, 200)) {
      assertThat(c.getParentCount()).isEqualTo(1);
    }
    assertThat(log.get(200).getParentCount()).isZero();
    PublicState state = holder.current();
    assertThat(state.commit()).isEqualTo(repository.head().name());
    assertThat(state.size(Sheet.PEOPLE)).isEqualTo(200);
    for (int v = 0; v < 4; v++) {
      for (int i = 0; i < 50; i++) {
        String slug = "p" + v + "-" + i;
        assertThat(state.personBySlug(slug)).isPresent();
        assertThat(repository.readFile(repository.head(), "people/" + slug + ".toml")).isNotNull();
      }
    }
    // what git holds is what memory holds
    assertThat(loader.loadHead().size(Sheet.PEOPLE)).isEqualTo(200);
  }

  @Test
  void refusedAndNoOpCommandsLeaveNoCommit() throws Exception {
    send("test.put", "bob").await();
    Moment before = now();

    Throwable refused = catchThrowable(() -> send("test.refuse", "bob").await());
    ApiError error = ApiError.from(refused);
    assertThat(error).isNotNull();
    assertThat(error.status()).isEqualTo(409);
    assertThat(error.code()).isEqualTo("nope");

    send("test.noop", "bob").await();
    send("test.put", "bob").await(); // the same record again: no change, so no commit
    assertNothingMovedSince(before);
  }

  @Test
  void aFailingPrivateStepLeavesRefAndStateUnchanged() throws Exception {
    send("test.put", "carol").await();
    Moment before = now();

    Throwable failed = catchThrowable(() -> send("test.private-fails", "dave").await());
    assertThat(ApiError.from(failed)).isNotNull().extracting(ApiError::status).isEqualTo(500);
    assertNothingMovedSince(before);

    // the failure comes at COMMIT (a deferred constraint): the branch moves only after it, so never
    Throwable atCommit = catchThrowable(() -> send("test.commit-fails", "erin").await());
    assertThat(ApiError.from(atCommit)).isNotNull().extracting(ApiError::status).isEqualTo(500);
    assertThat(repository.head()).isEqualTo(before.head());
    assertThat(holder.current().personBySlug("erin")).isEmpty();
    assertThat(repository.readFile(repository.head(), "people/erin.toml")).isNull();

    // and the writer goes on
    send("test.put", "frank").await();
    assertThat(history()).hasSize(3); // initial, carol, frank
  }

  @Test
  void commitsCarryTheActorsPseudonymAndParseableTrailersWithNoPrivateValue() throws Exception {
    send("test.put", "gina").await();
    RevCommit c = history().get(0);
    assertThat(c.getAuthorIdent().getName()).isEqualTo("Alice Example");
    assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("alice@users.noreply.codeforphilly.org");
    assertThat(c.getCommitterIdent()).isEqualTo(c.getAuthorIdent());
    assertThat(c.getShortMessage()).isEqualTo("alice: POST /api/test/gina");
    Map<String, String> trailers = new HashMap<>();
    for (FooterLine f : c.getFooterLines()) {
      trailers.put(f.getKey(), f.getValue());
    }
    assertThat(trailers).containsEntry("Action", "test.put").containsEntry("Subject-Type", "person")
        .containsEntry("Subject-Slug", "gina").containsEntry("Actor-Slug", "alice").containsEntry("Actor-Kind", "human")
        .containsEntry("Actor-Account-Level", "staff");
    assertThat(c.getFullMessage()).doesNotContain("private.example");
    assertThat(new String(repository.readFile(repository.head(), "people/gina.toml"), StandardCharsets.UTF_8))
        .doesNotContain("private.example");
  }

  @Test
  void aReplicaAppliesEventsAndCatchesUpAfterMissingSome() throws Exception {
    PublicStateHolder other = new PublicStateHolder(loader.loadHead());
    vertx.deployVerticle(new ReplicaVerticle(other, loader, codec, "node-b", pool, BRANCH)).await();
    send("test.put", "hana").await();
    awaitConverged(other);
    assertThat(other.current().personBySlug("hana")).isPresent();

    PublicState stale = other.current();
    send("test.put", "ivan").await();
    send("test.put", "jo").await();
    awaitConverged(other);
    // make node b miss events: put it back where it was, then write again
    other.set(stale);
    send("test.put", "kim").await();
    awaitConverged(other);
    for (String slug : List.of("hana", "ivan", "jo", "kim")) {
      assertThat(other.current().personBySlug(slug)).isPresent();
    }
    assertThat(other.current().size(Sheet.PEOPLE)).isEqualTo(holder.current().size(Sheet.PEOPLE));
  }

  /** The branch's head and the state in memory at one moment. */
  private record Moment(ObjectId head, PublicState state) {}

  private Moment now() {
    return new Moment(repository.head(), holder.current());
  }

  /** Neither the branch nor the state in memory has moved since {@code before} (the state is the same object). */
  private void assertNothingMovedSince(Moment before) {
    assertThat(repository.head()).isEqualTo(before.head());
    assertThat(holder.current()).isSameAs(before.state());
  }

  private void awaitConverged(PublicStateHolder replica) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!holder.current().commit().equals(replica.current().commit()) && System.nanoTime() < deadline) {
      vertx.timer(10).await();
    }
    assertThat(replica.current().commit()).isEqualTo(holder.current().commit());
  }
}
