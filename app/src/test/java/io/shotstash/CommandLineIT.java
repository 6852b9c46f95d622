package io.shotstash;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.config.Config;
import io.shotstash.testing.AppProcess;
import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command line as a person meets it (issue #16): the real jar as a process, its exit status and
 * what it prints. {@code --help} does nothing else, unknown options exit 2, and a person's mistakes
 * (seeding an instance with members, a port in use, a role or database that is not there) are one
 * line that names the thing, never a stack trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandLineIT {
  private static final Duration RUN = Duration.ofSeconds(120);

  private TestDatabase db;
  private Path folder;

  @BeforeAll
  void database() throws IOException {
    db = TestDatabase.create();
    folder = Files.createTempDirectory(ClusterNodes.jar().getParent(), "command-line-it-");
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  /** A data folder and a log of their own, and the test database (never the embedded one). */
  private Map<String, String> env(String name) throws IOException {
    Path dir = Files.createDirectories(folder.resolve(name));
    Map<String, String> env = AppProcess.baseEnv(AppProcess.closedPort(), dir.resolve("data"), dir);
    env.put("DATABASE_URL", db.databaseUrl());
    return env;
  }

  private AppProcess.Result run(String name, Map<String, String> env, String... args) {
    return AppProcess.run(folder.resolve(name + ".log"), RUN, env, args);
  }

  private static void assertNoStackTrace(AppProcess.Result r) {
    assertThat(r.output()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @ParameterizedTest(name = "{0} --help")
  @ValueSource(strings = {"serve", "migrate", "seed-demo", "worker", "help"})
  void helpOnEveryCommandPrintsItsUsageAndDoesNothingElse(String command) throws IOException {
    try (TestDatabase untouched = TestDatabase.create()) {
      Map<String, String> env = env("help-" + command);
      env.put("DATABASE_URL", untouched.databaseUrl());
      AppProcess.Result r = command.equals("help") ? run("help-" + command, env, "help")
          : run("help-" + command, env, command, "--help");
      assertThat(r.exit()).as(r.output()).isZero();
      assertThat(r.output()).startsWith("Usage: java -jar shotstash.jar");
      if (!command.equals("help")) {
        assertThat(r.output()).startsWith("Usage: java -jar shotstash.jar " + command);
      }
      assertNoStackTrace(r);
      // nothing else: no migration ran, no data folder was made
      assertThat(untouched.number("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();
      assertThat(Path.of(env.get("SHOTSTASH_DATA_DIR"))).doesNotExist();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"serve --bogus", "serve --cluster --bogus", "migrate --bogus", "seed-demo --bogus",
      "worker --bogus", "bogus"})
  void anUnknownCommandOrOptionPrintsTheUsageAndExitsTwo(String line) throws IOException {
    try (TestDatabase untouched = TestDatabase.create()) {
      Map<String, String> env = env("unknown-" + line.replace(' ', '_'));
      env.put("DATABASE_URL", untouched.databaseUrl());
      AppProcess.Result r = run("unknown-" + line.replace(' ', '_'), env, line.split(" "));
      assertThat(r.exit()).as(r.output()).isEqualTo(2);
      assertThat(r.output()).contains("bogus").contains("Usage: java -jar shotstash.jar");
      assertNoStackTrace(r);
      assertThat(untouched.number("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();
      assertThat(Path.of(env.get("SHOTSTASH_DATA_DIR"))).doesNotExist();
    }
  }

  @Test
  void seedDemoOnAnInstanceWithMembersSaysSoInOneLine() throws IOException {
    try (TestDatabase own = TestDatabase.create()) {
      Map<String, String> env = env("seed-twice");
      env.put("DATABASE_URL", own.databaseUrl());
      AppProcess.Result first = run("seed-1", env, "seed-demo", "--members", "3");
      assertThat(first.exit()).as(first.output()).isZero();
      AppProcess.Result second = run("seed-2", env, "seed-demo", "--members", "3");
      assertThat(second.exit()).as(second.output()).isEqualTo(1);
      assertThat(second.plainLines()).singleElement().asString()
          .startsWith("seed-demo fills an instance that has no members yet, and this one has members");
      assertNoStackTrace(second);
    }
  }

  @Test
  void aPortInUseNamesThePortAndTheSetting() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Map<String, String> env = env("port-in-use");
      env.put("SHOTSTASH_HTTP_PORT", Integer.toString(taken.getLocalPort()));
      AppProcess.Result r = run("port-in-use", env, "serve");
      assertThat(r.exit()).as(r.output()).isEqualTo(1);
      assertThat(r.plainLines()).singleElement().asString()
          .startsWith("Port " + taken.getLocalPort() + " is in use (SHOTSTASH_HTTP_PORT)");
      assertNoStackTrace(r);
    }
  }

  @Test
  void aMissingRoleIsNamed() throws IOException {
    Config.DatabaseUrl server = db.url();
    String role = "shotstash_no_role_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    Map<String, String> env = env("missing-role");
    env.put("DATABASE_URL",
        "postgresql://" + role + "@" + server.host() + ":" + server.port() + "/" + server.database());
    AppProcess.Result r = run("missing-role", env, "migrate");
    assertThat(r.exit()).as(r.output()).isEqualTo(1);
    assertThat(r.plainLines()).singleElement().asString()
        .contains("role '" + role + "'").doesNotContain("does not answer");
    assertNoStackTrace(r);
  }

  @Test
  void aRoleThatMayNotCreateTablesInTheDatabaseIsToldHowToFixIt() throws IOException {
    String role = "shotstash_guest_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    // PostgreSQL 15+ lets only the database's owner create in its public schema: a database someone
    // else owns, a role that may only sign in
    try (TestDatabase theirs = TestDatabase.create()) {
      theirs.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'role password 1'");
      try {
        Config.DatabaseUrl url = theirs.url();
        Map<String, String> env = env("no-create");
        env.put("DATABASE_URL", "postgresql://" + role + ":role%20password%201@" + url.host() + ":" + url.port() + "/"
            + url.database());
        AppProcess.Result r = run("no-create", env, "migrate");
        assertThat(r.exit()).as(r.output()).isEqualTo(1);
        assertThat(r.plainLines()).singleElement().asString()
            .startsWith("Could not apply the migrations to postgresql://" + role + "@")
            .contains("permission denied for schema public")
            .contains("ALTER DATABASE " + url.database() + " OWNER TO " + role);
        assertNoStackTrace(r);
      } finally {
        theirs.execute("DROP OWNED BY " + role);
        theirs.execute("DROP ROLE IF EXISTS " + role);
      }
    }
  }

  @Test
  void aMissingDatabaseTheRoleMayNotCreateIsNamedWithTheRole() throws IOException {
    Config.DatabaseUrl server = db.url();
    String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    String role = "shotstash_nocreate_" + suffix;
    String missing = "shotstash_missing_" + suffix;
    // a role that may sign in but not create databases (roles belong to the whole server: dropped below)
    db.execute("CREATE ROLE " + role + " LOGIN NOCREATEDB PASSWORD 'role password 1'");
    try {
      Map<String, String> env = env("missing-database");
      env.put("DATABASE_URL", "postgresql://" + role + ":role%20password%201@" + server.host() + ":" + server.port()
          + "/" + missing);
      for (List<String> args : List.of(List.of("migrate"), List.of("serve"))) {
        AppProcess.Result r = run("missing-database-" + args.get(0), env, args.toArray(String[]::new));
        assertThat(r.exit()).as(r.output()).isEqualTo(1);
        assertThat(r.plainLines()).singleElement().asString()
            .startsWith("Database '" + missing + "' does not exist at " + server.host() + ":" + server.port()
                + " and role '" + role + "' may not create it");
        assertNoStackTrace(r);
      }
    } finally {
      db.execute("DROP ROLE IF EXISTS " + role);
    }
  }
}
