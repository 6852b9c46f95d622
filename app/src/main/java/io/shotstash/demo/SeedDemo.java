package io.shotstash.demo;

import io.shotstash.app.Startup;
import io.shotstash.auth.Actor;
import io.shotstash.auth.Passwords;
import io.shotstash.auth.Tokens;
import io.shotstash.Main;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.db.DatabaseServer;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.StateSnapshot;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.demo.DemoData.Member;
import java.io.IOException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * {@code seed-demo --members N}: fills an instance that has no members yet with demo content, in
 * one commit of the data repository (the system's) and batched inserts of the private rows. Run it
 * while the app is stopped (a running writer would see its branch move and catch up on its next
 * write). Without an administrator it also creates {@code demo-admin} and prints its password once.
 */
public record SeedDemo(Config config, PrintStream out) {
  private static final int BATCH = 1000;

  static final String USAGE = """
      Usage: java -jar shotstash.jar seed-demo [--members N] [--seed S]
        Fills an instance that has no members yet with N demo members (1 .. 1000000, default 200) and
        demo content around them, made from the random seed S (default 42). Run it while the app is
        stopped. The database is chosen as for serve (DATABASE_URL, else 127.0.0.1:5432, else
        the embedded one).""";

  /** Refused because the instance already has members: a person's mistake, told in one line. */
  public static final class HasMembersException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    HasMembersException(String message) {
      super(message);
    }
  }

  /** The command line: {@code --members N} (1 .. 1,000,000; default 200) and {@code --seed S}. */
  public static void run(List<String> args) {
    if (args.contains("--help") || args.contains("-h")) {
      System.out.println(USAGE);
      System.exit(0);
    }
    int members = 200;
    long seed = 42;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (("--members".equals(a) || "--seed".equals(a)) && i + 1 < args.size()) {
        String v = args.get(++i);
        try {
          if ("--members".equals(a)) {
            members = Integer.parseInt(v);
          } else {
            seed = Long.parseLong(v);
          }
        } catch (NumberFormatException e) {
          usage(a + " takes a whole number, got " + v);
        }
      } else {
        usage("unknown option " + a);
      }
    }
    if (members < 1 || members > 1_000_000) {
      usage("--members must be between 1 and 1000000");
    }
    try (DatabaseServer database = Main.databaseFor(Config.fromEnvironment())) {
      new SeedDemo(database.config(), System.out).seed(members, seed);
    } catch (HasMembersException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }

  private static void usage(String problem) {
    System.err.println("seed-demo: " + problem);
    System.err.println(USAGE);
    System.exit(2);
  }

  public void seed(int memberCount, long seed) {
    Database.prepare(config.database());
    Attribution attribution = new Attribution(config.noreplyDomain());
    TomlCodec codec = new TomlCodec();
    try (DataRepository repo = DataRepository.openOrInit(config.dataRepo(), config.dataBranch(), Sheet.templates(),
        attribution.ident(Actor.SYSTEM, Instant.now()))) {
      PublicState state = new PublicStateLoader(repo, codec).loadHead();
      if (state.all(Sheet.PEOPLE, Person.class).stream().anyMatch(p -> !"administrator".equals(p.accountLevel()))) {
        throw new HasMembersException("seed-demo fills an instance that has no members yet, and this one has members "
            + "(data repository " + config.dataRepo().toAbsolutePath().normalize() + "): nothing was changed.");
      }
      Set<String> taken = new HashSet<>(state.keys(Sheet.PEOPLE));
      Instant now = Instant.now();
      progress("building records", 0, 1);
      DemoData.Content content = new DemoData(seed, now).build(memberCount, taken);
      List<RecordChange> records = new ArrayList<>(content.records());
      String adminPassword = null;
      Person admin = null;
      if (!state.setupDone()) {
        adminPassword = Tokens.random("").substring(0, 20);
        admin = new Person(io.shotstash.auth.Ids.uuid7(), null, "demo-admin", "Demo Administrator", null, null,
            "administrator", null, null, null, null, null, now, now);
        records.add(RecordChange.put(Sheet.PEOPLE, admin.slug(), admin));
      }
      List<PathChange> paths = new ArrayList<>(records.size());
      for (int i = 0; i < records.size(); i++) {
        RecordChange c = records.get(i);
        paths.add(PathChange.put(c.path(), codec.encode(c.sheet(), c.record())));
        if (i % 5000 == 0) {
          progress("encoding records", i, records.size());
        }
      }
      progress("committing " + paths.size() + " records", 0, 1);
      String message = CommitMessage.subject("system: seed-demo --members " + memberCount)
          .trailer("Action", "demo.seed").trailer("Actor-Slug", "system").trailer("Actor-Kind", "system").build()
          .render();
      try (GitTreeWriter git = new GitTreeWriter(repo.repository(), repo.branch())) {
        CommitResult result = git.commit(repo.head(), paths, attribution.ident(Actor.SYSTEM, now), message);
        if (!(result instanceof CommitResult.Committed)) {
          throw new IllegalStateException("the data repository did not take the demo commit: " + result);
        }
        progress("repacking", 0, 1);
        git.repackNow();
      }
      // what the app would otherwise do at its first start: read every file back and keep the state
      // snapshot (docs/public-data.md), so that the first start reads the snapshot instead
      progress("writing the state snapshot", 0, 1);
      writeSnapshot(new PublicStateLoader(repo, codec).loadHead());
      writePrivate(content.members(), admin, adminPassword, now);
      progress("done", 1, 1);
      out.println();
      out.printf("Seeded %d members and %d public records.%n", content.members().size(), records.size());
      if (adminPassword != null) {
        out.println("Sign in as demo-admin with the password " + adminPassword + " (shown once).");
      }
    }
  }

  private void writeSnapshot(PublicState state) {
    try {
      new StateSnapshot().write(Startup.snapshotFile(config), state);
    } catch (IOException e) {
      // only the first start's shortcut is lost: it reads every file and writes the snapshot itself
      out.println();
      out.println("Could not write the state snapshot (" + e.getMessage() + "); the first start reads every file.");
    }
  }

  private void writePrivate(List<Member> members, Person admin, String adminPassword, Instant now) {
    try (Connection c = Database.connect(config.database())) {
      c.setAutoCommit(false);
      try (PreparedStatement profile = c.prepareStatement("INSERT INTO private_profiles (person_id, email, github, "
          + "last_slack_sso_at, created_at, updated_at) VALUES (?, ?, ?::jsonb, ?, ?, ?) ON CONFLICT DO NOTHING");
          PreparedStatement session = c.prepareStatement("INSERT INTO sessions (id, person_id, issued_at, expires_at, "
              + "revoked_at, user_agent, method) VALUES (?, ?, ?, ?, ?, ?, 'github')")) {
        int n = 0;
        for (Member m : members) {
          UUID id = UUID.fromString(m.person().id());
          profile.setObject(1, id);
          profile.setString(2, m.email());
          profile.setString(3, "{\"login\":\"" + m.githubLogin() + "\",\"accountCreatedAt\":\"" + m.githubCreatedAt()
              + "\",\"publicRepos\":" + m.publicRepos() + ",\"followers\":" + m.followers()
              + ",\"status\":\"ok\",\"checkedAt\":\"" + now + "\"}");
          boolean slack = !m.spamLike() && m.sessions() > 2;
          profile.setTimestamp(4, slack ? Timestamp.from(m.lastSession()) : null);
          profile.setTimestamp(5, Timestamp.from(m.person().createdAt()));
          profile.setTimestamp(6, Timestamp.from(m.person().createdAt()));
          profile.addBatch();
          for (int s = 0; s < m.sessions(); s++) {
            Instant issued = m.lastSession().minus(Duration.ofDays(s * 3L));
            session.setObject(1, UUID.randomUUID());
            session.setObject(2, id);
            session.setTimestamp(3, Timestamp.from(issued));
            session.setTimestamp(4, Timestamp.from(issued.plus(Duration.ofDays(30))));
            session.setTimestamp(5, Timestamp.from(issued.plus(Duration.ofDays(1)))); // demo sessions are over
            session.setString(6, "Mozilla/5.0 (demo)");
            session.addBatch();
          }
          if (++n % BATCH == 0) {
            profile.executeBatch();
            session.executeBatch();
            progress("private rows", n, members.size());
          }
        }
        profile.executeBatch();
        session.executeBatch();
      }
      if (admin != null) {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO private_profiles (person_id, email) VALUES (?, ?)");
            PreparedStatement pw =
                c.prepareStatement("INSERT INTO password_credentials (person_id, hash) VALUES (?, ?)")) {
          p.setObject(1, UUID.fromString(admin.id()));
          p.setString(2, "demo-admin@example.org");
          p.executeUpdate();
          pw.setObject(1, UUID.fromString(admin.id()));
          pw.setString(2, Passwords.hash(adminPassword));
          pw.executeUpdate();
        }
      }
      c.commit();
      // after a bulk load: planner statistics and the visibility map now, rather than autovacuum
      // doing it during the app's first start
      progress("analyzing the private tables", 0, 1);
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute("VACUUM (ANALYZE) private_profiles, sessions, password_credentials");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not write the demo's private rows: " + e.getMessage(), e);
    }
  }

  /** A one-line progress bar on the console. */
  private void progress(String what, int done, int total) {
    int width = 30;
    int filled = total == 0 ? width : (int) ((long) done * width / total);
    out.printf("\r[%s%s] %3d%% %-40s", "#".repeat(filled), ".".repeat(width - filled),
        total == 0 ? 100 : (int) ((long) done * 100 / total), what);
    out.flush();
  }
}
