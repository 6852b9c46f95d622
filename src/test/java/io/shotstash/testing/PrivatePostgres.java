package io.shotstash.testing;

import io.shotstash.app.Config;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's own, so the test may stop, restart or kill it (the fault tests):
 * {@code initdb} into a fresh folder, trust auth, listening on a free port of 127.0.0.1 only. It
 * uses the machine's PostgreSQL binaries ({@code /usr/lib/postgresql/<major>/bin}, Debian's
 * {@code postgresql} package). PostgreSQL refuses to run as root, so as root every command runs as
 * the {@code postgres} user (the package creates it), with the folder owned by it.
 */
public final class PrivatePostgres implements AutoCloseable {
  private final Path bin;
  private final Path dir;
  private final Path data;
  private final int port;
  private final boolean asPostgresUser;

  private PrivatePostgres(Path bin, Path dir, int port, boolean asPostgresUser) {
    this.bin = bin;
    this.dir = dir;
    this.data = dir.resolve("data");
    this.port = port;
    this.asPostgresUser = asPostgresUser;
  }

  /** Initialises and starts a new server; fails with one line naming the package when there are no binaries. */
  public static PrivatePostgres start() {
    Path bin = binaries();
    boolean root = "root".equals(System.getProperty("user.name"));
    try {
      // /var/tmp (or /tmp): every user may reach it, so the postgres user can open its folder
      Path base = Files.isDirectory(Path.of("/var/tmp")) ? Path.of("/var/tmp") : Path.of("/tmp");
      Path dir = Files.createTempDirectory(base, "shotstash-pg-");
      dir.toFile().setReadable(true, false);
      dir.toFile().setExecutable(true, false);
      PrivatePostgres pg = new PrivatePostgres(bin, dir, freePort(), root);
      if (root) {
        run(List.of("chown", "postgres:postgres", dir.toString()), 30);
      }
      pg.runAsOwner(List.of(bin.resolve("initdb").toString(), "-D", pg.data.toString(), "-A", "trust", "-U", "postgres",
          "--no-sync", "-E", "UTF8"), 120);
      pg.startServer();
      return pg;
    } catch (IOException e) {
      throw new IllegalStateException("could not make a private PostgreSQL: " + e.getMessage(), e);
    }
  }

  private static Path binaries() {
    Path root = Path.of("/usr/lib/postgresql");
    try (Stream<Path> versions = Files.isDirectory(root) ? Files.list(root) : Stream.empty()) {
      return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
          .max(Comparator.comparingInt(PrivatePostgres::major))
          .orElseThrow(() -> new IllegalStateException("The fault tests start a PostgreSQL server of their own and "
              + "need its binaries: apt-get install postgresql (Debian's package; .ci/run installs it)"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int major(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The server's {@code postgres} database, as the app's settings name it. */
  public Config.DatabaseUrl url() {
    return Config.load(Map.of("DATABASE_URL", "postgresql://postgres@127.0.0.1:" + port + "/postgres")).database();
  }

  public int port() {
    return port;
  }

  /** Starts the server and waits until it accepts connections. */
  public void startServer() {
    runAsOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
        "-o", "-h 127.0.0.1 -p " + port + " -k " + dir + " -c fsync=off -c max_connections=200", "-w", "-t", "60", "start"),
        90);
  }

  /** A clean, fast shutdown (open connections are ended; what was committed stays). */
  public void stopServer() {
    runAsOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "-t", "60", "stop"), 90);
  }

  /** Stop, then start: what a restart of the database server looks like to the app. */
  public void restartServer() {
    stopServer();
    startServer();
  }

  private void runAsOwner(List<String> command, int timeoutSeconds) {
    List<String> full = new ArrayList<>();
    if (asPostgresUser) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    run(full, timeoutSeconds);
  }

  private static void run(List<String> command, int timeoutSeconds) {
    try {
      File out = File.createTempFile("pg-command-", ".log");
      try {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
        }
        if (p.exitValue() != 0) {
          throw new IllegalStateException(String.join(" ", command) + " failed (" + p.exitValue() + "): "
              + Files.readString(out.toPath()));
        }
      } finally {
        Files.deleteIfExists(out.toPath());
      }
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      runAsOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"), 60);
    } catch (IllegalStateException e) {
      // already stopped
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover folder in /var/tmp is harmless
    }
  }
}
