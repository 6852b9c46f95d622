package io.shotstash.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's root folder, where README.md, docs/, conf/, bench/, the Dockerfile and
 * target/shotstash.jar are. Maven runs each module's tests in the module's folder (app/), so tests
 * find those files here, never relative to the working directory. The parent pom passes the root as
 * the system property {@code shotstash.root}; without it (a test started from an IDE) the nearest
 * folder above the working directory that holds {@code .ci/run} is taken.
 */
public final class Repo {
  private static final Path ROOT = find();

  private Repo() {}

  /** The repository's root, absolute and normalised. */
  public static Path root() {
    return ROOT;
  }

  /** A path in the repository, e.g. {@code path("docs")} or {@code path("target/shotstash.jar")}. */
  public static Path path(String relative) {
    return ROOT.resolve(relative);
  }

  private static Path find() {
    String given = System.getProperty("shotstash.root");
    if (given != null && !given.isBlank()) {
      return Path.of(given).toAbsolutePath().normalize();
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve(".ci/run")) && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no repository root (a folder with .ci/run) above " + Path.of("").toAbsolutePath()
        + ": set the system property shotstash.root");
  }
}
