package io.shotstash.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.config.Config;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One database, one data repository, on real starts ({@link AppVerticle}, as {@code serve} deploys
 * it) against real PostgreSQL and a real git repository: the id recorded in both at first start,
 * the refusals that name both locations, and the adoption of an installation from before ids.
 */
class InstanceIdentityStartTest {
  private static final String PASSWORD = "not-to-be-printed-7f3a";

  @TempDir
  Path tmp;

  private final List<TestDatabase> databases = new java.util.ArrayList<>();

  @AfterEach
  void dropDatabases() {
    databases.forEach(TestDatabase::close);
  }

  private TestDatabase database() {
    TestDatabase db = TestDatabase.create();
    databases.add(db);
    return db;
  }

  /** Settings for a start on {@code db} and {@code dataDir}; the URL carries a password (trust auth ignores it). */
  private static Config config(TestDatabase db, Path dataDir) {
    Config.DatabaseUrl u = db.url();
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://" + u.user() + ":" + PASSWORD + "@" + u.host() + ":" + u.port() + "/"
        + u.database());
    env.put("SHOTSTASH_HTTP_HOST", "127.0.0.1");
    env.put("SHOTSTASH_HTTP_PORT", "0");
    env.put("SHOTSTASH_HTTP_INSTANCES", "1");
    env.put("SHOTSTASH_DB_POOL_SIZE", "2");
    env.put("SHOTSTASH_DATA_DIR", dataDir.toString());
    env.put("SHOTSTASH_SETUP_TOKEN", "test-setup-token-0123456789");
    return Config.load(env);
  }

  /** Starts the app, runs {@code whileUp} against its port, and stops it. */
  private static void run(Config config, java.util.function.BiConsumer<Vertx, Integer> whileUp) {
    Vertx vertx = Vertx.vertx();
    try {
      AppVerticle app = new AppVerticle(config);
      vertx.deployVerticle(app).await();
      whileUp.accept(vertx, app.port());
    } finally {
      vertx.close().await();
    }
  }

  private static void start(Config config) {
    run(config, (vertx, port) -> {});
  }

  /** Starts the app and returns why it refused (failing the test if it started). */
  private static InstanceIdentity.Refused refusal(Config config) {
    Vertx vertx = Vertx.vertx();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try {
      vertx.deployVerticle(new AppVerticle(config)).onComplete(ar -> failure.set(ar.cause())).await();
    } catch (RuntimeException e) {
      failure.set(e);
    } finally {
      vertx.close().await();
    }
    Throwable root = failure.get();
    assertThat(root).as("the start should have been refused").isNotNull();
    while (root.getCause() != null && !(root instanceof InstanceIdentity.Refused)) {
      root = root.getCause();
    }
    assertThat(root).isInstanceOf(InstanceIdentity.Refused.class);
    assertThat(root.getMessage()).doesNotContain(PASSWORD);
    return (InstanceIdentity.Refused) root;
  }

  /** Completes first-run setup over HTTP: the database then has people, the repository a person record. */
  private static void setup(Config config) {
    run(config, (vertx, port) -> {
      WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(port));
      HttpResponse<Buffer> r = client.post("/api/setup").putHeader("X-Setup-Token", config.setupToken())
          .sendJsonObject(new JsonObject().put("slug", "ada").put("fullName", "Ada Admin")
              .put("email", "ada@example.org").put("password", "admin password 123"))
          .await();
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
      client.close();
    });
  }

  private static String databaseId(TestDatabase db) {
    return db.text("SELECT instance_id::text FROM instance_identity");
  }

  private static Repository open(Config config) throws Exception {
    return new FileRepositoryBuilder().setGitDir(config.dataRepo().toFile()).setMustExist(true).build();
  }

  /** The id in the repository's instance file at the branch head, or null. */
  private static String repositoryId(Config config) throws Exception {
    try (Repository repo = open(config); RevWalk walk = new RevWalk(repo)) {
      ObjectId head = repo.resolve(Constants.R_HEADS + config.dataBranch());
      RevCommit commit = walk.parseCommit(head);
      try (TreeWalk tw = TreeWalk.forPath(repo, InstanceBinding.FILE, commit.getTree())) {
        if (tw == null) {
          return null;
        }
        ObjectLoader blob = repo.open(tw.getObjectId(0));
        String text = new String(blob.getBytes(), StandardCharsets.UTF_8);
        return text.replaceAll("(?s).*id = '([^']+)'.*", "$1");
      }
    }
  }

  /** The database has an instance id and the repository has the same one. */
  private static void oneIdInBoth(TestDatabase db, Config config) throws Exception {
    String id = databaseId(db);
    assertThat(id).isNotNull();
    assertThat(repositoryId(config)).isEqualTo(id);
  }

  private static int commits(Config config) throws Exception {
    try (Repository repo = open(config); RevWalk walk = new RevWalk(repo)) {
      walk.markStart(walk.parseCommit(repo.resolve(Constants.R_HEADS + config.dataBranch())));
      int n = 0;
      for (RevCommit ignored : walk) {
        n++;
      }
      return n;
    }
  }

  /** Makes the pair look like an installation from before ids: no row in the database, no file on the branch. */
  /** An installation set up in {@code folder} (under tmp) on {@code db}, as it was before instance ids. */
  private Config installedBeforeIds(TestDatabase db, String folder) throws Exception {
    Config config = config(db, tmp.resolve(folder));
    setup(config);
    forgetIds(db, config);
    return config;
  }

  private static void forgetIds(TestDatabase db, Config config) throws Exception {
    db.execute("DELETE FROM instance_identity");
    try (Repository repo = open(config); GitTreeWriter git = new GitTreeWriter(repo, config.dataBranch())) {
      CommitResult r = git.commit(git.head(), List.of(PathChange.delete(InstanceBinding.FILE)),
          new PersonIdent("Shotstash", "system@users.noreply.codeforphilly.org"), "test: as before instance ids");
      assertThat(r).isInstanceOf(CommitResult.Committed.class);
    }
  }

  // ---- the cases

  @Test
  void aFreshDatabaseAndAFreshFolderStartAndRecordOneIdInBoth() throws Exception {
    TestDatabase db = database();
    Config config = config(db, tmp.resolve("data"));
    start(config);
    oneIdInBoth(db, config);
  }

  @Test
  void theSameDatabaseAndFolderStartAgainAsTheSameInstance() throws Exception {
    TestDatabase db = database();
    Config config = config(db, tmp.resolve("data"));
    setup(config);
    String id = databaseId(db);
    int commits = commits(config);
    start(config);
    assertThat(databaseId(db)).isEqualTo(id);
    assertThat(repositoryId(config)).isEqualTo(id);
    assertThat(commits(config)).as("a second start commits nothing").isEqualTo(commits);
  }

  @Test
  void aDatabaseWithAnIdBesideAMissingRepositoryRefusesNamingBothAndCreatesNothing() throws Exception {
    TestDatabase db = database();
    setup(config(db, tmp.resolve("first")));
    Config moved = config(db, tmp.resolve("second")); // e.g. SHOTSTASH_DATA_DIR pointed elsewhere
    String message = refusal(moved).getMessage();
    assertThat(message).contains("postgresql://" + db.url().user() + "@" + db.url().host() + ":" + db.url().port()
        + "/" + db.url().database()).contains(moved.dataRepo().toAbsolutePath().normalize().toString())
        .contains(databaseId(db));
    assertThat(moved.dataRepo()).as("no half-made repository left behind").doesNotExist();
  }

  @Test
  void anEmptyRepositoryFolderIsLeftEmptyByARefusedStart() throws Exception {
    TestDatabase db = database();
    setup(config(db, tmp.resolve("first")));
    Config moved = config(db, tmp.resolve("second"));
    Files.createDirectories(moved.dataRepo()); // a mount point, say: the folder stays, empty
    assertThat(refusal(moved).getMessage()).contains(moved.dataRepo().toAbsolutePath().normalize().toString());
    assertThat(moved.dataRepo()).isEmptyDirectory();
  }

  @Test
  void aDatabaseAndARepositoryOfTwoInstancesRefuseNamingBoth() throws Exception {
    TestDatabase dbA = database();
    TestDatabase dbB = database();
    Config a = config(dbA, tmp.resolve("a"));
    Config b = config(dbB, tmp.resolve("b"));
    start(a);
    start(b);
    Config crossed = config(dbA, tmp.resolve("b"));
    String message = refusal(crossed).getMessage();
    assertThat(message).contains(dbA.url().database()).contains(crossed.dataRepo().toAbsolutePath().normalize()
        .toString()).contains(databaseId(dbA)).contains(databaseId(dbB));
    assertThat(repositoryId(b)).as("the other instance's repository is left as it was").isEqualTo(databaseId(dbB));
  }

  @Test
  void aDatabaseWithPeopleFromBeforeIdsRefusesANewFolder() throws Exception {
    // issue 16's case: the app used to make a new empty repository here and ask for setup again
    TestDatabase db = database();
    Config first = installedBeforeIds(db, "first");
    Config moved = config(db, tmp.resolve("second"));
    assertThat(refusal(moved).getMessage()).contains("already has people")
        .contains(moved.dataRepo().toAbsolutePath().normalize().toString());
    assertThat(moved.dataRepo()).doesNotExist();
    assertThat(databaseId(db)).as("nothing recorded by a refused start").isNull();
  }

  @Test
  void aRepositoryWithPeopleRefusesANewDatabase() throws Exception {
    TestDatabase db = database();
    Config first = config(db, tmp.resolve("data"));
    setup(first);
    TestDatabase lost = database(); // the database was lost, or DATABASE_URL names another one
    Config config = config(lost, tmp.resolve("data"));
    assertThat(refusal(config).getMessage()).contains(lost.url().database()).contains(databaseId(db))
        .contains("has no record of it");
    assertThat(databaseId(lost)).isNull();
  }

  @Test
  void anInstallationFromBeforeIdsIsAdoptedWithOneIdInBoth() throws Exception {
    TestDatabase db = database();
    Config config = installedBeforeIds(db, "data");
    assertThat(databaseId(db)).isNull();
    assertThat(repositoryId(config)).isNull();

    start(config);
    oneIdInBoth(db, config);
    try (Repository repo = open(config); RevWalk walk = new RevWalk(repo)) {
      RevCommit head = walk.parseCommit(repo.resolve(Constants.R_HEADS + config.dataBranch()));
      assertThat(head.getShortMessage()).isEqualTo("system: record instance id");
      assertThat(head.getFullMessage()).contains("Action: instance.record").contains("Actor-Kind: system");
    }
    // and from then on it is an ordinary instance: the administrator is still there
    run(config, (vertx, port) -> {
      WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(port));
      HttpResponse<Buffer> r = client.post("/api/auth/login")
          .sendJsonObject(new JsonObject().put("login", "ada").put("password", "admin password 123")).await();
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
      client.close();
    });
  }

  @Test
  void anOperatorWhoKnowsBetterMakesTheDatabaseTakeTheRepositorysIdAsOperationsMdSays() throws Exception {
    TestDatabase dbA = database();
    TestDatabase dbB = database();
    Config a = config(dbA, tmp.resolve("a"));
    setup(a);
    start(config(dbB, tmp.resolve("b")));
    Config crossed = config(dbB, tmp.resolve("a"));
    refusal(crossed);
    String repositoryId = repositoryId(a);
    dbB.execute(
        "DELETE FROM instance_identity; DELETE FROM public_data_head; INSERT INTO instance_identity (instance_id) VALUES ('"
            + repositoryId + "')");
    start(crossed);
    assertThat(databaseId(dbB)).isEqualTo(repositoryId);
  }
}
