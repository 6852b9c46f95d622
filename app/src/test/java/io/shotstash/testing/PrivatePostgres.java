package io.shotstash.testing;

import io.shotstash.config.Config;
import java.io.File;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * A PostgreSQL server of a test's own, so the test may stop, restart or kill it (the fault tests):
 * {@code initdb} into a fresh folder, trust auth, listening on a free port of 127.0.0.1 only. It
 * uses the machine's PostgreSQL binaries ({@code /usr/lib/postgresql/<major>/bin}, Debian's
 * {@code postgresql} package). PostgreSQL refuses to run as root, so as root every command runs as
 * the {@code postgres} user (the package creates it), with the folder owned by it.
 *
 * <p>On a machine without that package it uses the binaries the app embeds (zonky's Linux x86_64
 * archive, unpacked once under the test JVM's temporary folder) and, as root, runs every command in a
 * user namespace of its own ({@code unshare -U}), as the app's embedded database does: the README
 * promises the suite needs no PostgreSQL installed.
 */
public final class PrivatePostgres implements AutoCloseable {
  private final Path bin;
  private final Path dir;
  private final Path data;
  private final int port;
  /** What every PostgreSQL command runs under: {@code runuser -u postgres --}, {@code unshare -U}, or nothing. */
  private final List<String> prefix;

  private PrivatePostgres(Path bin, Path dir, int port, List<String> prefix) {
    this.bin = bin;
    this.dir = dir;
    this.data = dir.resolve("data");
    this.port = port;
    this.prefix = List.copyOf(prefix);
  }

  /** Initialises and starts a new server; fails with one line naming the package when there are no binaries. */
  public static PrivatePostgres start() {
    Path debian = debianBinaries();
    return debian != null ? start(debian, true) : startEmbedded();
  }

  /** A server from the app's embedded binaries (what a machine without Debian's package gets). */
  static PrivatePostgres startEmbedded() {
    return start(embeddedBinaries(), false);
  }

  private static PrivatePostgres start(Path bin, boolean debian) {
    boolean root = "root".equals(System.getProperty("user.name"));
    boolean asPostgresUser = root && debian;
    try {
      // /var/tmp (or /tmp): every user may reach it, so the postgres user can open its folder
      Path base = Files.isDirectory(Path.of("/var/tmp")) ? Path.of("/var/tmp") : Path.of("/tmp");
      Path dir = Files.createTempDirectory(base, "shotstash-pg-");
      dir.toFile().setReadable(true, false);
      dir.toFile().setExecutable(true, false);
      List<String> prefix = asPostgresUser ? List.of("runuser", "-u", "postgres", "--")
          : root ? List.of("unshare", "-U") : List.of();
      PrivatePostgres pg = new PrivatePostgres(bin, dir, freePort(), prefix);
      if (asPostgresUser) {
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

  /** Debian's newest {@code /usr/lib/postgresql/<major>/bin}, or null. */
  private static Path debianBinaries() {
    Path root = Path.of("/usr/lib/postgresql");
    try (Stream<Path> versions = Files.isDirectory(root) ? Files.list(root) : Stream.empty()) {
      return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
          .max(Comparator.comparingInt(PrivatePostgres::major)).orElse(null);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The app's embedded binaries, unpacked once into {@code <java.io.tmpdir>/private-postgres}; their bin folder. */
  private static synchronized Path embeddedBinaries() {
    Path home = Path.of(System.getProperty("java.io.tmpdir"), "private-postgres");
    Path done = home.resolve(".unpacked");
    if (Files.exists(done)) {
      return home.resolve("bin");
    }
    try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", "x86_64");
        TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(archive))) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        Path target = home.resolve(entry.getName()).normalize();
        if (!target.startsWith(home)) {
          continue;
        }
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else if (entry.isSymbolicLink()) {
          Files.createDirectories(target.getParent());
          Files.deleteIfExists(target);
          Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(tar, target, StandardCopyOption.REPLACE_EXISTING);
          target.toFile().setExecutable((entry.getMode() & 0111) != 0, false);
        }
      }
      Files.createFile(done);
      return home.resolve("bin");
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("The fault tests start a PostgreSQL server of their own and found neither "
          + "Debian's binaries (apt-get install postgresql; .ci/run installs it) nor the embedded ones ("
          + e.getMessage() + ")");
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
    runAsOwner(
        List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
            "-o", "-h 127.0.0.1 -p " + port + " -k " + dir + " -c fsync=off -c max_connections=200", "-w", "-t", "60",
            "start"),
        90);
  }

  /** A clean, fast shutdown (open connections are ended; what was committed stays). */
  public void stopServer() {
    runAsOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "-t", "60", "stop"),
        90);
  }

  /** Stop, then start: what a restart of the database server looks like to the app. */
  public void restartServer() {
    stopServer();
    startServer();
  }

  private void runAsOwner(List<String> command, int timeoutSeconds) {
    List<String> full = new ArrayList<>(prefix);
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
