package io.shotstash.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * Several Shotstash nodes, each its own JVM running {@code java -jar target/shotstash.jar serve --cluster}
 * (or one plain {@code serve}, for comparison),
 * on 127.0.0.1 with free ports, one PostgreSQL database ({@link TestDatabase}) and one shared data
 * folder under {@code target/} (the shared volume of a real deployment). Nodes can be killed
 * ({@code kill -9}), frozen ({@code SIGSTOP}) and thawed, and started again on the same ports.
 * {@link #close()} always thaws, stops and, if need be, kills every process, then drops the database.
 *
 * <p>Every wait here has a deadline; polling pauses use the given Vert.x instance's timers.
 */
public final class ClusterNodes implements AutoCloseable {
  public static final String SETUP_TOKEN = "cluster-setup-token-0123456789";
  public static final String JWT_SECRET = "cluster-jwt-secret-0123456789-0123456789-abcdef";
  public static final String BOOTSTRAP = "cluster-bootstrap-token-0123456789abcdefgh";

  private final Vertx vertx;
  private final Path jar;
  private final Path dir;
  private final TestDatabase db;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, String> extraEnv;
  private final List<String> jvmOptions;
  private final boolean clustered;

  /** One node: its ports, its process while it runs, its log (appended across restarts). */
  public final class Node {
    public final int index;
    public final int httpPort;
    public final int clusterPort;
    public final WebClient http;
    private Process process;
    private boolean frozen;

    Node(int index, int httpPort, int clusterPort) {
      this.index = index;
      this.httpPort = httpPort;
      this.clusterPort = clusterPort;
      this.http = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(httpPort),
          new PoolOptions().setHttp1MaxSize(32));
    }

    /** How /api/v1/status names this node. */
    public String name() {
      return "127.0.0.1:" + httpPort;
    }

    public Path log() {
      return dir.resolve("node-" + index + ".log");
    }

    public boolean isRunning() {
      return process != null && process.isAlive();
    }

    public long pid() {
      return process.pid();
    }

    /** Starts the node's JVM (it joins the others listed in SHOTSTASH_CLUSTER_MEMBERS). */
    public void start() {
      if (isRunning()) {
        throw new IllegalStateException("node " + index + " already runs");
      }
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.add("-Djava.io.tmpdir=" + dir.resolve("tmp"));
      command.addAll(List.of("-jar", jar.toString(), "serve"));
      if (clustered) {
        command.add("--cluster");
      }
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
      Map<String, String> env = pb.environment();
      env.keySet()
          .removeIf(k -> k.startsWith("SHOTSTASH_") || k.equals("DATABASE_URL") || k.equals("WORKER_BOOTSTRAP_TOKEN"));
      env.putAll(AppProcess.baseEnv(httpPort, dir.resolve("data"), dir));
      env.put("DATABASE_URL", db.databaseUrl());
      env.put("SHOTSTASH_SETUP_TOKEN", SETUP_TOKEN);
      env.put("SHOTSTASH_JWT_SECRET", JWT_SECRET);
      env.put("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP);
      env.put("SHOTSTASH_CLUSTER_HOST", "127.0.0.1");
      env.put("SHOTSTASH_CLUSTER_PORT", Integer.toString(clusterPort));
      env.put("SHOTSTASH_CLUSTER_MEMBERS", nodes.stream().map(n -> "127.0.0.1:" + n.clusterPort)
          .collect(Collectors.joining(",")));
      env.putAll(extraEnv);
      try {
        process = pb.start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start node " + index, e);
      }
      frozen = false;
    }

    /** {@code kill -9}: the process ends at once, no goodbye to the cluster. */
    public void kill() {
      if (process != null) {
        signal("CONT");
        process.destroyForcibly();
        waitFor(process, Duration.ofSeconds(10));
      }
    }

    /** SIGSTOP: the process is frozen, connections stay open, nothing answers. */
    public void freeze() {
      signal("STOP");
      frozen = true;
    }

    /** SIGCONT: a frozen process runs on from where it stopped. */
    public void thaw() {
      signal("CONT");
      frozen = false;
    }

    private void signal(String name) {
      if (!isRunning()) {
        return;
      }
      try {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
          throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    /** SIGTERM (after a SIGCONT if frozen), then SIGKILL if it has not ended within 20 s. */
    public void stop() {
      if (process == null) {
        return;
      }
      if (frozen) {
        thaw();
      }
      process.destroy();
      if (!waitFor(process, Duration.ofSeconds(20))) {
        process.destroyForcibly();
        waitFor(process, Duration.ofSeconds(10));
      }
    }

    /** GET /ready answers 200. */
    public boolean ready() {
      try {
        return http.get("/ready").timeout(2_000).send().await().statusCode() == 200;
      } catch (Exception e) { // refused, reset or timed out: not answering (await rethrows checked failures as they are)
        return false;
      }
    }

    /** The commit this node's public-state replica is at (from /ready), or null. */
    public String replicaCommit() {
      try {
        HttpResponse<Buffer> r = http.get("/ready").timeout(2_000).send().await();
        return r.bodyAsJsonObject().getJsonObject("checks").getString("commit");
      } catch (Exception e) { // refused, reset or timed out: not answering (await rethrows checked failures as they are)
        return null;
      }
    }

    /** {@code data} of GET /api/v1/status as the administrator, or null when the node does not answer. */
    public JsonObject status(String adminToken) {
      try {
        HttpResponse<Buffer> r =
            http.get("/api/v1/status").bearerTokenAuthentication(adminToken).timeout(3_000).send().await();
        return r.statusCode() == 200 ? r.bodyAsJsonObject().getJsonObject("data") : null;
      } catch (Exception e) { // refused, reset or timed out: not answering (await rethrows checked failures as they are)
        return null;
      }
    }

    @Override
    public String toString() {
      return "node " + index + " (" + name() + ")";
    }
  }

  private ClusterNodes(Vertx vertx, Path jar, int count, Map<String, String> extraEnv, List<String> jvmOptions,
      boolean clustered) throws IOException {
    this.vertx = vertx;
    this.clustered = clustered;
    this.extraEnv = Map.copyOf(extraEnv);
    this.jvmOptions = List.copyOf(jvmOptions);
    Path target = jar.getParent();
    this.dir = Files.createTempDirectory(target, "cluster-it-");
    // the nodes run a copy: a build that rewrites target/shotstash.jar meanwhile must not pull classes from under them
    this.jar = Files.copy(jar, dir.resolve("shotstash.jar"));
    Files.createDirectories(dir.resolve("data"));
    Files.createDirectories(dir.resolve("tmp"));
    Files.createDirectories(dir.resolve("xdg"));
    this.db = TestDatabase.create();
    List<Integer> ports = freePorts(2 * count);
    for (int i = 0; i < count; i++) {
      nodes.add(new Node(i, ports.get(2 * i), ports.get(2 * i + 1)));
    }
  }

  /**
   * Prepares {@code count} nodes (nothing starts yet). {@code jar} is the shaded jar;
   * {@code extraEnv} settings for every node; {@code jvmOptions} e.g. the heap size.
   */
  public static ClusterNodes create(Vertx vertx, Path jar, int count, Map<String, String> extraEnv,
      List<String> jvmOptions) {
    return create(vertx, jar, count, extraEnv, jvmOptions, true);
  }

  /** As {@link #create(Vertx, Path, int, Map, List)}; {@code clustered = false} runs plain {@code serve} (one node). */
  public static ClusterNodes create(Vertx vertx, Path jar, int count, Map<String, String> extraEnv,
      List<String> jvmOptions, boolean clustered) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: run `mvn package` first (mvn verify does)");
    }
    try {
      return new ClusterNodes(vertx, jar, count, extraEnv, jvmOptions, clustered);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The shaded jar: the system property {@code shotstash.jar} (set by Failsafe), else the root's target/shotstash.jar. */
  public static Path jar() {
    String given = System.getProperty("shotstash.jar");
    return (given != null ? Path.of(given) : Repo.path("target/shotstash.jar")).toAbsolutePath();
  }

  private static List<Integer> freePorts(int n) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        sockets.add(new ServerSocket(0));
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  public List<Node> nodes() {
    return nodes;
  }

  public Node node(int index) {
    return nodes.get(index);
  }

  public TestDatabase db() {
    return db;
  }

  public Path dataDir() {
    return dir.resolve("data");
  }

  public Path folder() {
    return dir;
  }

  /** Opens the shared data repository with JGit. */
  public Repository openRepository() throws IOException {
    return new FileRepositoryBuilder().setGitDir(dataDir().resolve("public.git").toFile()).setMustExist(true).build();
  }

  /** Starts node 0, waits until it serves, completes first-run setup; returns the administrator's token. */
  public String startFirst(Duration within) {
    Node first = node(0);
    first.start();
    eventually("node 0 to be ready", within, first::ready);
    TestApp.setup(first.http, SETUP_TOKEN);
    return login(first, "ada", TestApp.ADMIN_PASSWORD);
  }

  /** Starts the given nodes together and waits until all running nodes serve and agree on one writer. */
  public void startMore(List<Node> more, String adminToken, Duration within) {
    more.forEach(Node::start);
    awaitOneCluster(adminToken, within);
  }

  /** Waits until every running node is ready and names the same, non-null writer. Returns it. */
  public String awaitOneCluster(String adminToken, Duration within) {
    String[] writer = new String[1];
    eventually("every node ready, with one writer", within, () -> {
      Map<String, Integer> seen = new HashMap<>();
      for (Node n : nodes) {
        if (!n.isRunning()) {
          continue;
        }
        JsonObject status = n.status(adminToken);
        String w = status == null ? null : status.getString("writerNode");
        if (w == null) {
          return false;
        }
        seen.merge(w, 1, Integer::sum);
      }
      if (seen.size() != 1) {
        return false;
      }
      writer[0] = seen.keySet().iterator().next();
      return true;
    });
    return writer[0];
  }

  /** The node whose name is {@code name}. */
  public Node byName(String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no node named " + name));
  }

  /** Signs in on {@code node}; returns the bearer token. */
  public String login(Node node, String login, String password) {
    HttpResponse<Buffer> r = node.http.post("/api/auth/login")
        .sendJsonObject(new JsonObject().put("login", login).put("password", password)).await();
    if (r.statusCode() != 200) {
      throw new IllegalStateException("login of " + login + " on " + node + " failed: " + r.bodyAsString());
    }
    return r.bodyAsJsonObject().getJsonObject("data").getString("token");
  }

  /** Checks {@code condition} every 100 ms (on a Vert.x timer) until it holds; fails after {@code within}. */
  public void eventually(String what, Duration within, BooleanSupplier condition) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + within.toSeconds() + " s: " + what + " (logs in " + dir + ")");
      }
      pause(100);
    }
  }

  /** Waits {@code millis} on a Vert.x timer (used between polls only). */
  public void pause(long millis) {
    vertx.timer(millis, TimeUnit.MILLISECONDS).await();
  }

  private static boolean waitFor(Process process, Duration within) {
    try {
      return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Thaws, stops (or kills) every node, drops the database and the shared data; the nodes' logs stay under target/. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (Node n : nodes) {
      try {
        n.stop();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
        if (n.process != null) {
          n.process.destroyForcibly();
        }
      }
      n.http.close();
    }
    db.close();
    delete(dir.resolve("data"));
    delete(dir.resolve("tmp"));
    delete(jar);
    if (failure != null) {
      throw failure;
    }
  }

  private static void delete(Path path) {
    try (var files = Files.walk(path)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover under target/ is harmless
    }
  }
}
