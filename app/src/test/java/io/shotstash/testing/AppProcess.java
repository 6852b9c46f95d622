package io.shotstash.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar target/shotstash.jar <args>} as a process of its own, the way a person runs it:
 * an environment with none of the caller's Shotstash settings (only those given), standard output
 * and error together in a log file, SIGTERM to stop ({@link Process#destroy()}). For the tests of
 * the command line and of the embedded database, which need the real exit codes and shutdown hooks.
 */
public final class AppProcess implements AutoCloseable {
  private final Process process;
  private final Path log;

  private AppProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts the jar with {@code env} as its only Shotstash settings; output goes to {@code log} (appended). */
  public static AppProcess start(Path log, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // one temporary folder under target/ for every run: the embedded PostgreSQL unpacks its binaries
    // there once (java.io.tmpdir/embedded-pg), not into /tmp
    Path tmp = ClusterNodes.jar().getParent().resolve("app-process-tmp");
    try {
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + tmp,
        "-jar", ClusterNodes.jar().toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Map<String, String> environment = pb.environment();
    environment.keySet().removeIf(k -> k.startsWith("SHOTSTASH_") || k.equals("DATABASE_URL")
        || k.equals("WORKER_BOOTSTRAP_TOKEN"));
    environment.putAll(env);
    try {
      return new AppProcess(pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs the jar to its end (at most {@code within}); returns its exit code and output. */
  public static Result run(Path log, Duration within, Map<String, String> env, String... args) {
    try (AppProcess app = start(log, env, args)) {
      int exit = app.waitFor(within);
      return new Result(exit, app.output());
    }
  }

  /** What a finished run left: its exit code and everything it printed. */
  public record Result(int exit, String output) {
    /** The printed lines that are not log lines (those start with a time, HH:mm:ss.SSS). */
    public List<String> plainLines() {
      return output.lines().filter(l -> !l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*")).toList();
    }
  }

  /** Waits for the process to end; kills it and fails if it has not within {@code within}. */
  public int waitFor(Duration within) {
    try {
      if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("the app did not end within " + within.toSeconds() + " s; its log:\n" + output());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGTERM, as Ctrl-C or a service manager would send; returns the exit code. */
  public int stop(Duration within) {
    process.destroy();
    return waitFor(within);
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Everything printed so far (across restarts when they share the log). */
  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A port nothing listens on (it was free a moment ago). */
  public static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The settings every run of the jar needs (here, in {@link ClusterNodes} and in ReadmeCommandsIT): loopback
   * only, one HTTP instance, a small pool, a port and data folder of its own, JGit's XDG folder in {@code folder}.
   */
  public static Map<String, String> baseEnv(int httpPort, Path dataDir, Path folder) {
    Map<String, String> env = new HashMap<>();
    env.put("SHOTSTASH_HTTP_HOST", "127.0.0.1");
    env.put("SHOTSTASH_HTTP_PORT", Integer.toString(httpPort));
    env.put("SHOTSTASH_HTTP_INSTANCES", "1");
    env.put("SHOTSTASH_DB_POOL_SIZE", "4");
    env.put("SHOTSTASH_DATA_DIR", dataDir.toString());
    env.put("XDG_CONFIG_HOME", folder.resolve("xdg").toString());
    return env;
  }

  /**
   * Stops the process if it still runs (a test that failed half-way): SIGTERM first, so an embedded
   * PostgreSQL it started is stopped too, then SIGKILL if it has not ended within 30 s.
   */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
