package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.app.AppVerticle;
import io.shotstash.config.Config;
import io.shotstash.pipeline.QueueLoops;
import io.shotstash.publicdata.PublicStateHolder;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * The whole app, started for a test class the way {@code serve} starts it: its own database, its own
 * data folder, a free port on loopback, two HTTP verticles. Tests call it over real HTTP.
 */
public final class TestApp implements AutoCloseable {
  public static final String SETUP_TOKEN = "test-setup-token-0123456789";
  public static final String ADMIN_PASSWORD = "admin password 123";

  private final TestDatabase db;
  private final Path dataDir;
  private final boolean ownsDataDir;
  private final Vertx vertx;
  private final AppVerticle app;
  private final WebClient client;
  private final WebClient noRedirectClient;
  private final int port;
  private final Config config;

  private final Map<String, String> extra;

  private TestApp(TestDatabase db, Map<String, String> extra) throws IOException {
    this(db, extra, !extra.containsKey("SHOTSTASH_DATA_DIR"));
  }

  private TestApp(TestDatabase db, Map<String, String> extra, boolean ownsDataDir) throws IOException {
    this.db = db;
    this.extra = Map.copyOf(extra);
    // A test may bring its own data folder (a small tmpfs, SmallDisk): then it owns it, and close()
    // leaves it to the test
    this.ownsDataDir = ownsDataDir;
    dataDir = extra.containsKey("SHOTSTASH_DATA_DIR") ? Path.of(extra.get("SHOTSTASH_DATA_DIR"))
        : Files.createTempDirectory("shotstash-test-");
    port = extra.containsKey("SHOTSTASH_HTTP_PORT") ? Integer.parseInt(extra.get("SHOTSTASH_HTTP_PORT")) : freePort();
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", db.databaseUrl());
    env.put("SHOTSTASH_HTTP_HOST", "127.0.0.1");
    env.put("SHOTSTASH_HTTP_PORT", Integer.toString(port));
    env.put("SHOTSTASH_HTTP_INSTANCES", "2");
    env.put("SHOTSTASH_DATA_DIR", dataDir.toString());
    env.put("SHOTSTASH_SETUP_TOKEN", SETUP_TOKEN);
    env.put("SHOTSTASH_DB_POOL_SIZE", "4");
    env.putAll(extra);
    config = Config.load(env);
    vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)); // as Main: epoll where Netty ships it
    app = new AppVerticle(config);
    vertx.deployVerticle(app).await();
    client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port));
    noRedirectClient = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port)
        .setFollowRedirects(false));
  }

  public static TestApp start() {
    return start(Map.of());
  }

  public static TestApp start(Map<String, String> settings) {
    return start(TestDatabase.create(), settings);
  }

  /** The app on a database of the test's choosing (dropped when the app closes). */
  public static TestApp start(TestDatabase db, Map<String, String> settings) {
    try {
      return new TestApp(db, settings);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  public Vertx vertx() {
    return vertx;
  }

  public WebClient client() {
    return client;
  }

  /** A client on the app that answers redirects as they are (a 302 stays a 302), as the sign-in tests need. */
  public WebClient noRedirectClient() {
    return noRedirectClient;
  }

  public int port() {
    return port;
  }

  public Config config() {
    return config;
  }

  public TestDatabase db() {
    return db;
  }

  public QueueLoops queueLoops() {
    return app.queueLoops();
  }

  public PublicStateHolder publicState() {
    return app.publicState();
  }

  public Path dataDir() {
    return dataDir;
  }

  /** Opens the data repository with JGit, for assertions on what git holds. */
  public Repository openRepository() throws IOException {
    return new FileRepositoryBuilder().setGitDir(config.dataRepo().toFile()).setMustExist(true).build();
  }

  /** Completes first-run setup with an administrator {@code ada} and returns a bearer token for her. */
  public String setupAndLogin() {
    setup(client, SETUP_TOKEN);
    return login("ada", ADMIN_PASSWORD);
  }

  /**
   * Completes first-run setup through {@code http} with the administrator {@code ada} (password
   * {@link #ADMIN_PASSWORD}), as this app and each {@link ClusterNodes} cluster have it.
   */
  static void setup(WebClient http, String setupToken) {
    HttpResponse<Buffer> r = http.post("/api/setup").putHeader("X-Setup-Token", setupToken)
        .sendJsonObject(new JsonObject().put("slug", "ada").put("fullName", "Ada Admin")
            .put("email", "ada@example.org").put("password", ADMIN_PASSWORD))
        .await();
    if (r.statusCode() != 201) {
      throw new IllegalStateException("setup failed: " + r.bodyAsString());
    }
  }

  /** Signs in and returns the bearer token. */
  public String login(String login, String password) {
    HttpResponse<Buffer> r = client.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", login).put("password", password)).await();
    if (r.statusCode() != 200) {
      throw new IllegalStateException("login failed: " + r.bodyAsString());
    }
    return r.bodyAsJsonObject().getJsonObject("data").getString("token");
  }

  /** An administrator creates an account; returns the person JSON. */
  public JsonObject createPerson(String adminToken, String slug, String level, String password) {
    HttpResponse<Buffer> r = client.post("/api/people").bearerTokenAuthentication(adminToken)
        .sendJsonObject(new JsonObject().put("slug", slug).put("fullName", "Person " + slug)
            .put("email", slug + "@example.org").put("password", password).put("accountLevel", level))
        .await();
    if (r.statusCode() != 201) {
      throw new IllegalStateException("create failed: " + r.bodyAsString());
    }
    return r.bodyAsJsonObject().getJsonObject("data");
  }

  /**
   * Uploads {@code bytes} as the file {@code name} of {@code type} into {@code folderId}, as the
   * bearer {@code token}; asserts the 201 and answers the file's id.
   */
  public String upload(String token, String folderId, String name, String type, byte[] bytes) {
    HttpResponse<Buffer> r = client.post("/api/v1/files").bearerTokenAuthentication(token)
        .putHeader("Content-Type", type).putHeader("X-File-Name", name).addQueryParam("folderId", folderId)
        .sendBuffer(Buffer.buffer(bytes)).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getJsonObject("data").getString("id");
  }

  /** {@link #upload} of a few bytes that claim to be a video/mp4. */
  public String uploadVideo(String token, String folderId, String name) {
    return upload(token, folderId, name, "video/mp4", "not really a video".getBytes(StandardCharsets.UTF_8));
  }

  /** An administrator creates an account and its owner signs in; returns the owner's bearer token. */
  public String createAndLogin(String adminToken, String slug, String level, String password) {
    createPerson(adminToken, slug, level, password);
    return login(slug, password);
  }

  /**
   * Stops the app (its Vert.x, as a stopped process would) and starts it again on the same database,
   * data folder and port, as a restart does; answers the new app, which owns what this one owned.
   */
  public TestApp restart() {
    client.close();
    noRedirectClient.close();
    vertx.close().await();
    Map<String, String> again = new HashMap<>(extra);
    again.put("SHOTSTASH_DATA_DIR", dataDir.toString());
    again.put("SHOTSTASH_HTTP_PORT", Integer.toString(port));
    try {
      return new TestApp(db, again, ownsDataDir);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    client.close();
    noRedirectClient.close();
    vertx.close().await();
    db.close();
    if (!ownsDataDir) {
      return;
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary folder is harmless
    }
  }
}
