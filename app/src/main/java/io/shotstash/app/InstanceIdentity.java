package io.shotstash.app;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The rule that keeps one database and one data repository together (docs/public-data.md → One
 * database, one data repository). Each records the instance's id; a start compares what the two
 * hold and either goes on (recording the id where it is missing) or refuses with one message that
 * names both locations. Pure: the facts come from {@link InstanceBinding}, which does the I/O.
 *
 * <p>Why refuse at all: the private rows (emails, passwords, sessions) are keyed by the ids of the
 * public people records. Paired with the wrong repository, the app used to start with an empty one,
 * ask for setup again, and leave every member unable to sign in; paired with another instance's, it
 * would mix two communities. The rule:
 * <ol>
 *   <li>a database with an id accepts only a repository with the same id;</li>
 *   <li>a repository with an id and people records accepts only a database with the same id (such a
 *       repository was made by this app, so a database without the id is a lost or another one);</li>
 *   <li>a database with people needs a repository with people records;</li>
 *   <li>otherwise the start goes on, and the id (the one side's, else a new one) is recorded where it
 *       is missing: a fresh install, an installation from before ids (both have people), or an
 *       existing gitsheets repository brought to a new database.</li>
 * </ol>
 */
public final class InstanceIdentity {
  private InstanceIdentity() {}

  /**
   * What the database holds.
   *
   * @param location where it is, for messages (never with a password)
   * @param id the instance id it recorded, or null
   * @param hasPeople whether it holds private rows of people
   */
  public record DatabaseFacts(String location, String id, boolean hasPeople) {
    public DatabaseFacts {
      Objects.requireNonNull(location, "location");
    }
  }

  /**
   * What the data repository holds on its branch.
   *
   * @param location its folder, for messages
   * @param exists false when the folder is missing or empty (the start would create it)
   * @param id the instance id it recorded, or null
   * @param hasPeople whether the branch holds people records
   */
  public record RepositoryFacts(String location, boolean exists, String id, boolean hasPeople) {
    public RepositoryFacts {
      Objects.requireNonNull(location, "location");
    }

    /** The same repository once it exists and records {@code id}. */
    public RepositoryFacts withId(String id) {
      return new RepositoryFacts(location, true, id, hasPeople);
    }
  }

  /** What to do. */
  public sealed interface Decision permits Start, Refuse {}

  /** Go on as instance {@code id}, first recording it where it is missing. */
  public record Start(String id, boolean recordInDatabase, boolean recordInRepository) implements Decision {}

  /** Do not start; {@code message} says why and what to do. */
  public record Refuse(String message) implements Decision {
    public Refused exception() {
      return new Refused(message);
    }
  }

  /** A start refused by this rule: its message is for the person at the console, as is (no stack trace). */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
      super(message);
    }
  }

  /** The second line of every refusal. */
  static final String WHAT_TO_DO = "Point DATABASE_URL and SHOTSTASH_DATA_REPO (or SHOTSTASH_DATA_DIR) at the same "
      + "installation, or restore the missing one from its backup (docs/operations.md: One database, one data "
      + "repository).";

  /** The decision for these facts; {@code newId} makes an id when neither side has one. */
  public static Decision decide(DatabaseFacts db, RepositoryFacts repo, Supplier<String> newId) {
    if (db.id() != null) {
      if (db.id().equals(repo.id())) {
        return new Start(db.id(), false, false);
      }
      String other = !repo.exists() ? "there is no data repository at " + repo.location()
          : repo.id() != null ? "the data repository " + repo.location() + " belongs to instance " + repo.id()
              : "the data repository " + repo.location() + " has no instance id: it is not this instance's repository";
      return refuse("the database " + db.location() + " belongs to Shotstash instance " + db.id() + ", but " + other);
    }
    if (repo.id() != null && repo.hasPeople()) {
      return refuse("the data repository " + repo.location() + " belongs to Shotstash instance " + repo.id()
          + ", but the database " + db.location() + " has no record of it (a new database, or another instance's)");
    }
    if (db.hasPeople() && !repo.hasPeople()) {
      String other = !repo.exists() ? "there is no data repository at " + repo.location()
          : "the data repository " + repo.location() + " holds no people: it is not this instance's repository";
      return refuse("the database " + db.location() + " already has people, but " + other);
    }
    String id = repo.id() != null ? repo.id() : newId.get();
    return new Start(id, true, repo.id() == null);
  }

  private static Refuse refuse(String problem) {
    return new Refuse("Shotstash will not start: " + problem + ".\n" + WHAT_TO_DO);
  }
}
