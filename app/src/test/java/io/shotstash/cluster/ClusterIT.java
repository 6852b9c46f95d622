package io.shotstash.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.ClusterNodes.Node;
import io.shotstash.testing.Folders;
import io.shotstash.testing.HttpWorker;
import io.shotstash.testing.VoteStream;
import io.shotstash.testing.VoteStream.Attempt;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Three nodes of {@code java -jar target/shotstash.jar serve --cluster}, each its own JVM on 127.0.0.1,
 * one PostgreSQL database and one shared data folder: writes from every node make one linear
 * history; the git writer fails over after {@code kill -9} and after a freeze ({@code SIGSTOP} then
 * {@code SIGCONT}) without losing or doubling an accepted write; sixteen workers spread over the
 * nodes drain 2,000 jobs with none claimed twice; a worker's rate limit counts across nodes; a job
 * subscription on one node sees progress reported on another.
 *
 * <p>Runs in {@code mvn verify} (Failsafe, after the jar is built). Failover times and the drain rate
 * are measured and printed (and written to {@code target/cluster-it-results.txt}), never asserted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {
  private static final Pattern MARK = Pattern.compile("mark-[0-9a-f]{32}");
  private static final String PIPELINE = "/api/v1/pipeline";
  /** Staff who vote: 00-05 in the first test, 06-11 in the kill, 12-17 and 00-05 in the freeze, 18 after it. */
  private static final int STAFF = 19;
  private static final List<String> MEMBERS = List.of("member-a", "member-b", "member-c");

  private Vertx vertx;
  private ClusterNodes cluster;
  private String admin;
  private final Map<String, String> staffTokens = new LinkedHashMap<>();
  private final Map<String, Object> results = new LinkedHashMap<>();

  @BeforeAll
  @Timeout(240)
  void startThreeNodes() {
    vertx = Vertx.vertx();
    cluster = ClusterNodes.create(vertx, ClusterNodes.jar(), 3, Map.of(), List.of("-Xmx256m", "-XX:+UseSerialGC"));
    admin = cluster.startFirst(Duration.ofSeconds(90));
    cluster.startMore(List.of(cluster.node(1), cluster.node(2)), admin, Duration.ofSeconds(120));
    // staff who vote (at most 30 writes a minute each, counted cluster-wide) and members they vote on,
    // created through every node
    for (int i = 0; i < STAFF; i++) {
      createPerson(cluster.node(i % 3), String.format("staff-%02d", i), "staff");
    }
    for (int i = 0; i < MEMBERS.size(); i++) {
      createPerson(cluster.node(i % 3), MEMBERS.get(i), "user");
    }
    awaitConverged(cluster.nodes());
    for (int i = 0; i < STAFF; i++) {
      String slug = String.format("staff-%02d", i);
      staffTokens.put(slug, cluster.login(cluster.node(i % 3), slug, "staff password 123"));
    }
  }

  @AfterAll
  void stopNodes() throws IOException {
    try {
      if (!results.isEmpty()) {
        StringBuilder text = new StringBuilder();
        results.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.writeString(ClusterNodes.jar().getParent().resolve("cluster-it-results.txt"), text.toString());
      }
    } finally {
      try {
        if (cluster != null) {
          cluster.close();
        }
      } finally {
        vertx.close().await();
      }
    }
  }

  private void createPerson(Node node, String slug, String level) {
    HttpResponse<Buffer> r = node.http.post("/api/people").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("slug", slug).put("fullName", "Person " + slug)
            .put("email", slug + "@example.org")
            .put("password", level.equals("staff") ? "staff password 123" : "member password 123")
            .put("accountLevel", level))
        .await();
    assertThat(r.statusCode()).as("create %s on %s: %s", slug, node, r.bodyAsString()).isEqualTo(201);
  }

  private void record(String key, Object value) {
    results.put(key, value);
    System.out.println("[cluster-it] " + key + " = " + value);
  }

  // ---- 1. one history ----

  @Test
  @Order(1)
  @Timeout(120)
  void writesSentToEveryNodeLandAsOneLinearHistoryWithNothingLost() throws IOException {
    List<VoteStream> streams = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      streams.add(
          new VoteStream(vertx, cluster.node(i % 3), staffTokens.get(String.format("staff-%02d", i)), MEMBERS, 0, 8,
              Duration.ofSeconds(60)));
    }
    List<Attempt> attempts = VoteStream.runAll(streams);

    assertThat(attempts).hasSize(48);
    assertThat(attempts).allSatisfy(a -> assertThat(a.status()).as(a.toString()).isEqualTo(200));
    History history = history();
    assertThat(history.merges()).as("commits with more than one parent").isZero();
    assertThat(history.firstParentChain()).as("every commit is on the one chain").isEqualTo(history.commits());
    for (Attempt a : attempts) {
      assertThat(history.count(a.marker())).as("commits carrying %s", a.marker()).isEqualTo(1);
    }
    awaitConverged(cluster.nodes());
  }

  // ---- 2. rate limits count on every node together ----

  @Test
  @Order(2)
  @Timeout(120)
  void aWorkersRateLimitIsReachedAcrossNodesNotPerNode() {
    HttpWorker worker = HttpWorker.register(vertx, cluster.node(0), "127.0.0.1", "rate-probe", "test/rate");
    Map<Integer, Integer> acceptedPerNode = new HashMap<>();
    int accepted = 0;
    HttpResponse<Buffer> refused = null;
    for (int call = 0; call < 700 && refused == null; call++) {
      Node node = cluster.node(call % 3);
      HttpResponse<Buffer> r = worker.next(node).await();
      if (r.statusCode() == 429) {
        refused = r;
      } else {
        assertThat(r.statusCode()).as("jobs/next on %s: %s", node, r.bodyAsString()).isEqualTo(204);
        accepted++;
        acceptedPerNode.merge(node.index, 1, Integer::sum);
      }
    }
    assertThat(refused).as("a 429 within 700 calls").isNotNull();
    assertThat(refused.bodyAsJsonObject().getString("code")).isEqualTo("RATE_LIMITED");
    assertThat(refused.getHeader("Retry-After")).isNotBlank();
    // 600 a minute per worker, counted once for the whole cluster: no node alone saw 600
    assertThat(accepted).isEqualTo(600);
    assertThat(acceptedPerNode.values()).allSatisfy(n -> assertThat(n).isLessThan(600));
    for (Node node : cluster.nodes()) {
      assertThat(worker.next(node).await().statusCode()).as("after the limit, on %s", node).isEqualTo(429);
    }
    record("rateLimit.acceptedPerNode", acceptedPerNode);
  }

  // ---- 3. subscriptions across nodes ----

  @Test
  @Order(3)
  @Timeout(120)
  void aJobSubscriptionOnOneNodeSeesProgressReportedOnAnother() throws Exception {
    Node a = cluster.node(0);
    Node b = cluster.node(1);
    HttpWorker worker = HttpWorker.register(vertx, b, "127.0.0.1", "probe", "test/probe");
    String fileId = upload(a, "take.txt");
    JsonObject enqueued = graphql(a, "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id } }",
        new JsonObject().put("f", fileId).put("k", "test/probe"));
    String jobId = enqueued.getJsonObject("data").getJsonObject("enqueueJob").getString("id");
    HttpWorker.Claim claim = worker.claim(b);
    assertThat(claim.jobId()).isEqualTo(jobId);

    try (Socket socket = new Socket(vertx, a, admin)) {
      socket.subscribe("1", "subscription($id: ID!) { jobUpdated(jobId: $id) { id status progress seq } }",
          new JsonObject().put("id", jobId));
      // first progress: the view reaches the subscriber (by the event, or by the catch-up read at its start)
      JsonObject first = null;
      for (int p = 10; p < 20 && first == null; p++) {
        assertThat(worker.progress(b, claim, p).await().statusCode()).isEqualTo(200);
        first = socket.view(Duration.ofSeconds(3));
      }
      assertThat(first).as("a view on node A after progress on node B").isNotNull();
      // the subscription now listens on A; this progress on B reaches it only through the clustered event bus
      assertThat(worker.progress(b, claim, 60).await().statusCode()).isEqualTo(200);
      JsonObject view = null;
      for (int i = 0; i < 10 && (view == null || view.getInteger("progress") != 60); i++) {
        view = socket.view(Duration.ofSeconds(3));
      }
      assertThat(view).as("the view with progress 60 on node A").isNotNull();
      assertThat(view.getString("id")).isEqualTo(jobId);
      assertThat(view.getString("status")).isEqualTo("running");
      assertThat(view.getInteger("progress")).isEqualTo(60);
    }
  }

  // ---- 4. sixteen workers, 2,000 jobs ----

  @Test
  @Order(4)
  @Timeout(180)
  void sixteenHttpWorkersSpreadOverTheNodesDrainTwoThousandJobsWithNoneClaimedTwice() throws Exception {
    int jobs = 2_000;
    List<HttpWorker> workers = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      // each from its own loopback address, so they do not share the per-IP limit
      workers.add(HttpWorker.register(vertx, cluster.node(i % 3), "127.0.0." + (30 + i), String.format("drain-%02d", i),
          "test/drain"));
    }
    sql("INSERT INTO media_files (id, name, mime_type, size, storage_key) SELECT gen_random_uuid(), 'drain-' || g || '.txt', "
        + "'text/plain', 5, 'originals/drain-' || g FROM generate_series(1, " + jobs + ") g");
    sql("INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), id, 'test/drain' FROM media_files "
        + "WHERE name LIKE 'drain-%'");

    Map<String, String> claimedBy = new ConcurrentHashMap<>();
    List<String> claimedTwice = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger completed = new AtomicInteger();
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(150);
    List<Future<Void>> loops = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      HttpWorker w = workers.get(i);
      Node node = cluster.node(i % 3);
      loops.add(w.drain(node, deadline, job -> {
        if (claimedBy.putIfAbsent(job, w.name()) != null) {
          claimedTwice.add(job);
        }
      }, completed, jobs));
    }
    Future.all(loops).await();
    double seconds = (System.nanoTime() - start) / 1e9;

    assertThat(claimedTwice).as("jobs claimed twice").isEmpty();
    assertThat(completed.get()).isEqualTo(jobs);
    assertThat(claimedBy).hasSize(jobs);
    assertThat(
        number("SELECT count(*) FROM pipeline_jobs WHERE kind = 'test/drain' AND status = 'done' AND attempts = 1"))
        .isEqualTo(jobs);
    assertThat(number("SELECT count(DISTINCT job_id) FROM processed_versions WHERE kind = 'test/drain'"))
        .isEqualTo(jobs);
    assertThat(number("SELECT count(*) FROM processed_versions WHERE kind = 'test/drain'")).isEqualTo(jobs);
    record("drain.jobs", jobs);
    record("drain.seconds", String.format("%.1f", seconds));
    record("drain.jobsPerSecond", String.format("%.0f", jobs / seconds));
  }

  // ---- 5. kill -9 the writer's node ----

  @Test
  @Order(5)
  @Timeout(180)
  void killingTheWritersNodeMovesTheWriterAndLosesOrDoublesNoAcceptedWrite() throws IOException {
    Node writer = cluster.byName(cluster.awaitOneCluster(admin, Duration.ofSeconds(30)));
    Node survivor = cluster.nodes().stream().filter(n -> n != writer).findFirst().orElseThrow();
    // The writes go on for 41 s after the kill: when the writer dies in the middle of moving the
    // branch, it leaves the branch's lock file, which the next writer removes only once it is
    // BranchRef.STALE_LOCK_MILLIS (30 s) old; until then every write is refused as a conflict.
    // A stream that ended 10 s after the kill (with a 10 s limit then) saw no write accepted again in such a run.
    List<VoteStream> streams = streams(6, Duration.ofMillis(1_600), Duration.ofSeconds(45)); // under 30 votes each (WriteLimit)
    List<Future<List<Attempt>>> running = streams.stream().map(VoteStream::run).toList();

    cluster.pause(4_000);
    long killedAt = System.nanoTime();
    writer.kill();
    long moved = awaitNewWriter(survivor, writer, killedAt, Duration.ofSeconds(60));
    List<Attempt> attempts = VoteStream.collect(running);

    Outcome outcome = check(attempts, killedAt);
    List<Node> survivors = cluster.nodes().stream().filter(n -> n != writer).toList();
    awaitConverged(survivors);
    record("kill9.writerMovedMs", moved);
    record("kill9.firstAcceptedWriteMs", outcome.firstAcceptedAfterMs());
    record("kill9.attempts", outcome.summary());

    // the node comes back and joins as an ordinary member
    writer.start();
    String newWriter = cluster.awaitOneCluster(admin, Duration.ofSeconds(120));
    assertThat(newWriter).isNotEqualTo(writer.name());
    awaitConverged(cluster.nodes());
  }

  // ---- 6. freeze the writer's node ----

  @Test
  @Order(6)
  @Timeout(180)
  void aFrozenWriterThatWakesUpMakesNoSecondCommitAndNoWriteIsLost() throws IOException {
    Node writer = cluster.byName(cluster.awaitOneCluster(admin, Duration.ofSeconds(30)));
    Node survivor = cluster.nodes().stream().filter(n -> n != writer).findFirst().orElseThrow();
    List<VoteStream> streams = streams(12, Duration.ofMillis(1_200), Duration.ofSeconds(30));
    List<Future<List<Attempt>>> running = streams.stream().map(VoteStream::run).toList();

    cluster.pause(4_000);
    long frozenAt = System.nanoTime();
    writer.freeze();
    long moved;
    try {
      moved = awaitNewWriter(survivor, writer, frozenAt, Duration.ofSeconds(60));
      // stay frozen a while after another node took over, so the other writer commits meanwhile
      long frozenFor = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
      if (frozenFor < 12_000) {
        cluster.pause(12_000 - frozenFor);
      }
    } finally {
      writer.thaw();
    }
    List<Attempt> attempts = VoteStream.collect(running);

    Outcome outcome = check(attempts, frozenAt);
    // the woken node merges back and serves again; one writer for all, not the woken one
    String after = cluster.awaitOneCluster(admin, Duration.ofSeconds(90));
    assertThat(after).isNotEqualTo(writer.name());
    awaitConverged(cluster.nodes());
    // and its writes land again
    List<Attempt> later =
        VoteStream.runAll(List.of(new VoteStream(vertx, writer, staffTokens.get("staff-18"), MEMBERS, 0, 3,
            Duration.ofSeconds(60))));
    assertThat(later).allSatisfy(a -> assertThat(a.status()).as(a.toString()).isEqualTo(200));
    History history = history();
    later.forEach(a -> assertThat(history.count(a.marker())).isEqualTo(1));
    awaitConverged(cluster.nodes());
    record("freeze.writerMovedMs", moved);
    record("freeze.firstAcceptedWriteMs", outcome.firstAcceptedAfterMs());
    record("freeze.attempts", outcome.summary());
  }

  // ---- helpers: votes ----

  /** {@code count} streams spread over the nodes, by staff not used yet in this run. */
  private int nextStaff = 6;

  private List<VoteStream> streams(int count, Duration pacing, Duration within) {
    List<VoteStream> streams = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String slug = String.format("staff-%02d", nextStaff++ % 18);
      streams.add(
          new VoteStream(vertx, cluster.node(i % 3), staffTokens.get(slug), MEMBERS, pacing.toMillis(), 1_000, within));
    }
    return streams;
  }

  /** How a failover run went: every accepted write once, no refused one, unknown ones at most once. */
  record Outcome(long firstAcceptedAfterMs, String summary) {}

  private Outcome check(List<Attempt> attempts, long eventAt) throws IOException {
    History history = history();
    assertThat(history.merges()).isZero();
    assertThat(history.firstParentChain()).isEqualTo(history.commits());
    int accepted = 0;
    int refused = 0;
    int unknown = 0;
    int unknownMade = 0;
    Map<String, Integer> codes = new HashMap<>();
    long firstAfter = -1;
    for (Attempt a : attempts) {
      int count = history.count(a.marker());
      if (a.accepted()) {
        accepted++;
        assertThat(count).as("accepted %s is in git exactly once", a).isEqualTo(1);
        if (a.startNanos() > eventAt) {
          long ms = TimeUnit.NANOSECONDS.toMillis(a.endNanos() - eventAt);
          firstAfter = firstAfter < 0 ? ms : Math.min(firstAfter, ms);
        }
      } else if (a.unknown()) {
        unknown++;
        unknownMade += count;
        assertThat(count).as("%s is in git at most once", a).isLessThanOrEqualTo(1);
      } else {
        refused++;
        assertThat(count).as("refused %s is not in git", a).isZero();
      }
      if (!a.accepted()) {
        codes.merge(a.status() + (a.code() == null ? "" : " " + a.code()), 1, Integer::sum);
      }
    }
    assertThat(firstAfter).as("writes were accepted again after the writer's node went away").isPositive();
    return new Outcome(firstAfter, String.format("%d accepted, %d refused, %d unknown (%d of them made) %s",
        accepted, refused, unknown, unknownMade, codes));
  }

  /** Polls {@code survivor}'s /status until it names a writer other than {@code old}; the time since {@code since}. */
  private long awaitNewWriter(Node survivor, Node old, long since, Duration within) {
    cluster.eventually("another node to run the writer", within, () -> {
      JsonObject status = survivor.status(admin);
      String w = status == null ? null : status.getString("writerNode");
      return w != null && !w.equals(old.name());
    });
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
  }

  // ---- helpers: git ----

  /** The branch's commits, newest first: their messages and shape. */
  record History(int commits, int firstParentChain, int merges, Map<String, Integer> markers) {
    int count(String marker) {
      return markers.getOrDefault(marker, 0);
    }
  }

  private History history() throws IOException {
    try (Repository repo = cluster.openRepository(); RevWalk walk = new RevWalk(repo)) {
      ObjectId head = repo.exactRef("refs/heads/published").getObjectId();
      walk.markStart(walk.parseCommit(head));
      int commits = 0;
      int merges = 0;
      Map<String, Integer> markers = new HashMap<>();
      for (RevCommit c : walk) {
        commits++;
        if (c.getParentCount() > 1) {
          merges++;
        }
        Matcher m = MARK.matcher(c.getFullMessage());
        while (m.find()) {
          markers.merge(m.group(), 1, Integer::sum);
        }
      }
      int chain = 0;
      RevCommit c = walk.parseCommit(head);
      while (c != null) {
        chain++;
        c = c.getParentCount() == 0 ? null : walk.parseCommit(c.getParent(0));
      }
      return new History(commits, chain, merges, markers);
    }
  }

  private String head() {
    try (Repository repo = cluster.openRepository()) {
      return repo.exactRef("refs/heads/published").getObjectId().name();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every given node's replica reaches the branch head. */
  private void awaitConverged(List<Node> nodes) {
    cluster.eventually("every replica at the branch head", Duration.ofSeconds(60), () -> {
      String head = head();
      return nodes.stream().allMatch(n -> head.equals(n.replicaCommit()));
    });
  }

  // ---- helpers: SQL, files, GraphQL ----

  private void sql(String statement) {
    cluster.db().execute(statement);
  }

  private long number(String query) {
    return cluster.db().number(query);
  }

  private String upload(Node node, String name) {
    // a folder of the node's own: an upload needs one, and the folder write goes through that node too
    String folder = Folders.create(node.http, admin, "inputs of " + name);
    HttpResponse<Buffer> r = node.http.post("/api/v1/files").bearerTokenAuthentication(admin)
        .addQueryParam("folderId", folder).putHeader("Content-Type", "text/plain").putHeader("X-File-Name", name)
        .sendBuffer(Buffer.buffer("the content of " + name, StandardCharsets.UTF_8.name())).await();
    assertThat(r.statusCode()).as("upload: %s", r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getJsonObject("data").getString("id");
  }

  private JsonObject graphql(Node node, String query, JsonObject variables) {
    HttpResponse<Buffer> r = node.http.post("/graphql").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("query", query).put("variables", variables)).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getJsonArray("errors")).as(body.encode()).isNull();
    return body;
  }

  /** A graphql-transport-ws connection to one node. */
  static final class Socket implements AutoCloseable {
    private final WebSocketClient client;
    private final WebSocket ws;
    private final BlockingQueue<JsonObject> received = new LinkedBlockingQueue<>();

    Socket(Vertx vertx, Node node, String token) throws InterruptedException {
      client = vertx.createWebSocketClient();
      ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(node.httpPort).setURI("/graphql")
          .addSubProtocol("graphql-transport-ws")).await();
      ws.textMessageHandler(text -> received.add(new JsonObject(text)));
      send(new JsonObject().put("type", "connection_init").put("payload",
          new JsonObject().put("Authorization", "Bearer " + token)));
      JsonObject ack = received.poll(10, TimeUnit.SECONDS);
      assertThat(ack).as("connection_ack").isNotNull();
      assertThat(ack.getString("type")).isEqualTo("connection_ack");
    }

    void send(JsonObject message) {
      ws.writeTextMessage(message.encode()).await();
    }

    void subscribe(String id, String query, JsonObject variables) {
      send(new JsonObject().put("id", id).put("type", "subscribe")
          .put("payload", new JsonObject().put("query", query).put("variables", variables)));
    }

    /** The next jobUpdated view, or null when none comes within {@code within}. */
    JsonObject view(Duration within) throws InterruptedException {
      JsonObject m = received.poll(within.toMillis(), TimeUnit.MILLISECONDS);
      if (m == null) {
        return null;
      }
      assertThat(m.getString("type")).as(m.encode()).isEqualTo("next");
      return m.getJsonObject("payload").getJsonObject("data").getJsonObject("jobUpdated");
    }

    @Override
    public void close() {
      ws.close().await();
      client.close().await();
    }
  }
}
