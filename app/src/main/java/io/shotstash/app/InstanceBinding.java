package io.shotstash.app;

import io.shotstash.app.InstanceIdentity.DatabaseFacts;
import io.shotstash.app.InstanceIdentity.Decision;
import io.shotstash.app.InstanceIdentity.Refuse;
import io.shotstash.app.InstanceIdentity.RepositoryFacts;
import io.shotstash.app.InstanceIdentity.Start;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O around {@link InstanceIdentity}: reads what the database and the data repository record,
 * opens (or creates) the repository only when the rule lets the start go on, records the id where
 * it is missing, and undoes its own changes when a later step fails, so a refused or failed start
 * leaves neither a new repository nor a half-recorded id behind. Blocking (JDBC, JGit).
 *
 * <p>The repository's id is a file on its branch, {@value #FILE}, so it travels with every clone,
 * mirror and backup of the repository (docs/public-data.md says why not a git config key). The
 * database's is the one row of {@code instance_identity} (migration V7).
 */
final class InstanceBinding {
  static final String FILE = ".shotstash/instance.toml";
  private static final Pattern ID_LINE = Pattern.compile("(?m)^\\s*id\\s*=\\s*['\"]([0-9a-fA-F-]{36})['\"]\\s*$");
  private static final Logger log = LoggerFactory.getLogger(InstanceBinding.class);

  private InstanceBinding() {}

  /**
   * The repository, open, and whether the database side is still to be checked
   * ({@link #confirm}): a repository that already records its id is opened at once, so loading
   * the public state need not wait for the migrations.
   */
  record Opened(DataRepository repository, RepositoryFacts facts, boolean confirmLater) {}

  /**
   * Opens the data repository for this start. When it records an id, opens it as usual and leaves
   * the check to {@link #confirm}. Otherwise (missing, empty, or from before ids) asks
   * {@code database} for its facts first (waiting for the migrations), decides, and only then
   * creates or opens the repository and records the id, in the repository first, then in the
   * database. Call it under {@code FirstStartLock}, so nodes sharing the folder take turns.
   *
   * @throws InstanceIdentity.Refused when the two do not belong together (nothing changed)
   */
  static Opened open(Config config, PersonIdent system, Supplier<DatabaseFacts> database) {
    Path dir = config.dataRepo();
    boolean folderExisted = Files.isDirectory(dir);
    RepositoryFacts facts = peek(dir, config.dataBranch());
    if (facts.id() != null) {
      return new Opened(openOrInit(config, system), facts, true);
    }
    DatabaseFacts db = database.get();
    Decision decision = InstanceIdentity.decide(db, facts, () -> UUID.randomUUID().toString());
    if (decision instanceof Refuse refuse) {
      throw refuse.exception();
    }
    Start start = (Start) decision;
    ObjectId before = facts.exists() ? headOf(dir, config.dataBranch()) : null;
    DataRepository repository = openOrInit(config, system);
    try {
      if (start.recordInRepository()) {
        record(repository, start.id(), system);
      }
      if (start.recordInDatabase()) {
        String held = recordInDatabase(config.database(), start.id());
        if (!start.id().equals(held)) { // another start recorded its own id in this database meanwhile
          DatabaseFacts now = new DatabaseFacts(db.location(), held, db.hasPeople());
          throw ((Refuse) InstanceIdentity.decide(now, facts, () -> held)).exception();
        }
      }
      log.info(
          facts.exists() ? "Instance {} recorded in the database {} and the data repository {} (they had no id yet)"
              : "Instance {} recorded in the database {} and the new data repository {}",
          start.id(), db.location(), dir);
      return new Opened(repository, facts.withId(start.id()), false);
    } catch (RuntimeException e) {
      undo(repository, dir, facts.exists(), folderExisted, before);
      throw e;
    }
  }

  /**
   * The check left for later by {@link #open}: the repository records {@code opened.facts().id()};
   * the database must record the same (or none yet, then it is recorded).
   *
   * @throws InstanceIdentity.Refused when the two do not belong together
   */
  static void confirm(Config config, Opened opened, DatabaseFacts db) {
    Decision decision = InstanceIdentity.decide(db, opened.facts(), () -> opened.facts().id());
    if (decision instanceof Refuse refuse) {
      throw refuse.exception();
    }
    Start start = (Start) decision;
    if (start.recordInDatabase()) {
      String held = recordInDatabase(config.database(), start.id());
      if (!start.id().equals(held)) {
        throw ((Refuse) InstanceIdentity.decide(new DatabaseFacts(db.location(), held, db.hasPeople()), opened.facts(),
            () -> held)).exception();
      }
      log.info("Instance {} (from the data repository {}) recorded in the new database {}", start.id(),
          opened.facts().location(), db.location());
    }
  }

  // ---- the database

  /** What the database records; blocking, after the migrations. */
  static DatabaseFacts readDatabase(Config.DatabaseUrl url) {
    try (Connection c = Database.connect(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT (SELECT instance_id::text FROM instance_identity), "
            + "EXISTS (SELECT 1 FROM private_profiles) OR EXISTS (SELECT 1 FROM password_credentials)")) {
      rs.next();
      return new DatabaseFacts(url.display(), rs.getString(1), rs.getBoolean(2));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the instance id from the database " + url.display() + ": "
          + e.getMessage(), e);
    }
  }

  /** Records {@code id} unless the database records one already; returns the one it records now. */
  static String recordInDatabase(Config.DatabaseUrl url, String id) {
    try (Connection c = Database.connect(url);
        PreparedStatement insert = c.prepareStatement(
            "INSERT INTO instance_identity (instance_id) VALUES (?::uuid) ON CONFLICT DO NOTHING");
        Statement s = c.createStatement()) {
      insert.setString(1, id);
      insert.executeUpdate();
      try (ResultSet rs = s.executeQuery("SELECT instance_id::text FROM instance_identity")) {
        rs.next();
        return rs.getString(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot record the instance id in the database " + url.display() + ": "
          + e.getMessage(), e);
    }
  }

  // ---- the repository

  /** What the repository at {@code dir} records on {@code branch}, read without changing anything. */
  static RepositoryFacts peek(Path dir, String branch) {
    String location = dir.toAbsolutePath().normalize().toString();
    if (DataRepository.isMissingOrEmpty(dir)) {
      return new RepositoryFacts(location, false, null, false);
    }
    try (DataRepository repository = DataRepository.openToRead(dir, branch)) {
      ObjectId head = repository.head();
      return new RepositoryFacts(location, true, readId(repository, head, location),
          repository.hasFolder(head, Sheet.PEOPLE.sheetName()));
    }
  }

  /** The id in {@value #FILE} at {@code head}, or null when there is no such file. */
  static String readId(DataRepository repository, ObjectId head, String location) {
    byte[] file = repository.readFile(head, FILE);
    if (file == null) {
      return null;
    }
    Matcher m = ID_LINE.matcher(new String(file, StandardCharsets.UTF_8));
    try {
      if (m.find()) {
        return UUID.fromString(m.group(1)).toString();
      }
    } catch (IllegalArgumentException e) {
      // not a UUID: said below
    }
    throw new InstanceIdentity.Refused("Shotstash will not start: " + FILE + " in the data repository " + location
        + " holds no instance id (id = '<uuid>'): put back the file as it was, from the repository's history or a "
        + "backup.");
  }

  /** The file that records {@code id}. */
  static byte[] fileFor(String id) {
    return ("# The Shotstash instance this data repository belongs to. Its PostgreSQL database records the same\n"
        + "# id; a start that finds another one refuses (docs/public-data.md: One database, one data repository).\n"
        + "id = '" + id + "'\n").getBytes(StandardCharsets.UTF_8);
  }

  /** Commits {@value #FILE} on the branch, by the system. */
  private static void record(DataRepository repository, String id, PersonIdent system) {
    String message = CommitMessage.subject("system: record instance id")
        .trailer("Action", "instance.record").trailer("Actor-Slug", "system").trailer("Actor-Kind", "system")
        .build().render();
    try (GitTreeWriter git = new GitTreeWriter(repository.repository(), repository.branch())) {
      CommitResult result = git.commit(repository.head(), List.of(PathChange.put(FILE, fileFor(id))),
          new PersonIdent(system, Instant.now()), message);
      if (!(result instanceof CommitResult.Committed)) {
        throw new IllegalStateException("the data repository " + repository.repository().getDirectory()
            + " did not take the instance id: " + result);
      }
    }
  }

  private static DataRepository openOrInit(Config config, PersonIdent system) {
    return DataRepository.openOrInit(config.dataRepo(), config.dataBranch(), Sheet.templates(), system);
  }

  private static ObjectId headOf(Path dir, String branch) {
    try (DataRepository repository = DataRepository.openToRead(dir, branch)) {
      return repository.head();
    }
  }

  /**
   * Puts things back as {@link #open} found them: a repository it created is removed (the folder
   * too, unless it was there, empty, before: it may be a mount point); in one that existed, the
   * branch goes back to where it was (the commits this start made become unreachable).
   */
  private static void undo(DataRepository repository, Path dir, boolean existed, boolean folderExisted,
      ObjectId before) {
    try {
      if (existed) {
        putBranchBack(repository, before);
        return;
      }
    } catch (RuntimeException e) {
      log.warn("Could not move the branch of {} back after a failed start: {}", dir, e.toString());
      return;
    } finally {
      repository.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(dir) || !folderExisted) {
          Files.delete(p);
        }
      }
    } catch (IOException e) {
      log.warn("Could not remove the data repository {} this failed start created: {}", dir, e.toString());
    }
  }

  private static void putBranchBack(DataRepository repository, ObjectId before) {
    ObjectId now = repository.head();
    if (now == null || now.equals(before)) {
      return;
    }
    if (before != null) {
      try (GitTreeWriter git = new GitTreeWriter(repository.repository(), repository.branch())) {
        git.moveBranch(now, before);
      }
      return;
    }
    try { // the branch was unborn: make it so again
      RefUpdate update = repository.repository().updateRef(Constants.R_HEADS + repository.branch());
      update.setExpectedOldObjectId(now);
      update.setForceUpdate(true);
      update.delete();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
