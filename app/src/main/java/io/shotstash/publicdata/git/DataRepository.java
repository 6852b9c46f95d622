package io.shotstash.publicdata.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The bare git repository that holds the public records, in the gitsheets layout: one TOML file
 * per record under each sheet's root, and {@code .gitsheets/<sheet>.toml} describing each sheet.
 *
 * <p>Opens (creating it if needed) the repository and makes sure the branch carries the sheet
 * configuration; then offers read access to any commit. Writes go through a
 * {@link GitTreeWriter} on {@link #repository()}.
 *
 * <p>All methods do blocking file I/O: never call them on a Vert.x event loop. Reads are safe from
 * any thread, concurrently with the writer (each call uses its own object reader). I/O failures
 * surface as {@link UncheckedIOException}. {@link #close()} closes the repository.
 */
public final class DataRepository implements AutoCloseable {

  /** Folder holding one {@code <sheet>.toml} configuration file per sheet. */
  public static final String SHEETS_FOLDER = ".gitsheets";
  static final String INIT_MESSAGE = "system: initialise data repository";
  static final String ADD_SHEETS_MESSAGE = "system: add sheet configuration";

  private final Repository repo;
  private final String branch;
  private final String refName;

  private DataRepository(Repository repo, String branch) {
    this.repo = repo;
    this.branch = branch;
    this.refName = Constants.R_HEADS + branch;
  }

  /**
   * Opens the bare repository at {@code dir}, creating it when {@code dir} is missing or empty,
   * points HEAD at {@code branch}, and commits whichever {@code .gitsheets/<sheet>.toml} files
   * are missing from the branch (all of them, as the initial commit, on an unborn branch).
   * Existing sheet files are never overwritten.
   *
   * @param sheetTemplates sheet name to path template, e.g. {@code "people" -> "${slug}"}
   * @param systemIdent    author of the set-up commits (its timestamp is replaced by now)
   */
  public static DataRepository openOrInit(Path dir, String branch, Map<String, String> sheetTemplates,
      PersonIdent systemIdent) {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(systemIdent, "systemIdent");
    if (!Repository.isValidRefName(Constants.R_HEADS + Objects.requireNonNull(branch, "branch"))) {
      throw new IllegalArgumentException("invalid branch name: " + branch);
    }
    Map<String, PathChange> sheetFiles = SheetConfig.files(sheetTemplates);
    Repository repo = isMissingOrEmpty(dir) ? initBare(dir, branch) : openBare(dir);
    DataRepository data = new DataRepository(repo, branch);
    try {
      data.pointHeadAtBranch();
      data.addMissingSheetFiles(sheetFiles, systemIdent);
      return data;
    } catch (RuntimeException e) {
      repo.close();
      throw e;
    }
  }

  /**
   * Opens the existing bare repository at {@code dir} only to read it: unlike {@link #openOrInit}
   * it changes nothing (no sheet files, HEAD left as it is), so a start that then refuses
   * (io.shotstash.app.InstanceIdentity) leaves the repository exactly as it found it.
   */
  public static DataRepository openToRead(Path dir, String branch) {
    return new DataRepository(openBare(Objects.requireNonNull(dir, "dir")), Objects.requireNonNull(branch, "branch"));
  }

  /** Whether {@code dir} is missing or an empty folder: {@link #openOrInit} would then create the repository. */
  public static boolean isMissingOrEmpty(Path dir) {
    if (!Files.exists(dir)) {
      return true;
    }
    try (Stream<Path> children = Files.list(dir)) {
      return children.findAny().isEmpty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  /** Whether {@code commit}'s tree has a folder at {@code path}; false for a {@code null} commit. */
  public boolean hasFolder(ObjectId commit, String path) {
    if (commit == null) {
      return false;
    }
    try (ObjectReader reader = repo.newObjectReader();
        TreeWalk walk = TreeWalk.forPath(reader, path, treeOf(reader, commit))) {
      return walk != null && FileMode.TREE.equals(walk.getRawMode(0));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + " at " + commit.name(), e);
    }
  }

  /** The underlying JGit repository, e.g. for a {@link GitTreeWriter}. */
  public Repository repository() {
    return repo;
  }

  /** The branch holding the published records. */
  public String branch() {
    return branch;
  }

  /** The branch's current commit, or {@code null} while it is unborn. */
  public ObjectId head() {
    try {
      Ref ref = repo.exactRef(refName);
      return ref == null || ref.getObjectId() == null ? null : ref.getObjectId().copy();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + refName, e);
    }
  }

  /**
   * Calls {@code visitor} with the path and bytes of every file in {@code commit}'s tree, in git
   * order. A {@code null} commit (unborn branch) has no files. The byte arrays are the
   * visitor's to keep.
   */
  public void readTree(ObjectId commit, BiConsumer<String, byte[]> visitor) {
    if (commit == null) {
      return;
    }
    try (ObjectReader reader = repo.newObjectReader(); TreeWalk walk = new TreeWalk(reader)) {
      walk.addTree(treeOf(reader, commit));
      walk.setRecursive(true);
      while (walk.next()) {
        if (isBlob(walk.getRawMode(0))) {
          visitor.accept(walk.getPathString(), readBlob(reader, walk.getObjectId(0)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read tree of " + commit.name(), e);
    }
  }

  /**
   * The sheets configured in {@code commit}: each {@code .gitsheets/*.toml} file's
   * {@code [gitsheet]} root mapped to its path template, in file-name order. A sheet without
   * a root uses its file name as root.
   *
   * @throws IllegalStateException if a sheet file is not valid TOML or has no {@code path}
   */
  public Map<String, String> readSheetTemplates(ObjectId commit) {
    Map<String, String> templates = new LinkedHashMap<>();
    if (commit == null) {
      return templates;
    }
    try (ObjectReader reader = repo.newObjectReader();
        TreeWalk folder = TreeWalk.forPath(reader, SHEETS_FOLDER, treeOf(reader, commit))) {
      if (folder == null || !FileMode.TREE.equals(folder.getRawMode(0))) {
        return templates;
      }
      try (TreeWalk files = new TreeWalk(reader)) {
        files.addTree(folder.getObjectId(0));
        while (files.next()) {
          String name = files.getNameString();
          if (isBlob(files.getRawMode(0)) && name.endsWith(".toml")) {
            String sheet = name.substring(0, name.length() - ".toml".length());
            String toml = new String(readBlob(reader, files.getObjectId(0)), StandardCharsets.UTF_8);
            SheetConfig.read(templates, sheet, toml);
          }
        }
      }
      return templates;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read sheet configuration of " + commit.name(), e);
    }
  }

  /** The bytes of the file at {@code path} in {@code commit}, or {@code null} if there is none. */
  public byte[] readFile(ObjectId commit, String path) {
    if (commit == null) {
      return null;
    }
    try (ObjectReader reader = repo.newObjectReader();
        TreeWalk walk = TreeWalk.forPath(reader, path, treeOf(reader, commit))) {
      return walk == null || !isBlob(walk.getRawMode(0)) ? null : readBlob(reader, walk.getObjectId(0));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + " at " + commit.name(), e);
    }
  }

  /**
   * The paths of files added, removed or modified between two commits, in git order. Subtrees
   * with the same id on both sides are skipped without being read, so this costs in proportion
   * to the change, not to the repository. A {@code null} commit stands for an empty tree.
   */
  public List<String> changedPaths(ObjectId from, ObjectId to) {
    List<String> paths = new ArrayList<>();
    try (ObjectReader reader = repo.newObjectReader(); TreeWalk walk = new TreeWalk(reader)) {
      walk.addTree(treeIterator(reader, from));
      walk.addTree(treeIterator(reader, to));
      walk.setRecursive(true);
      walk.setFilter(TreeFilter.ANY_DIFF);
      while (walk.next()) {
        paths.add(walk.getPathString());
      }
      return paths;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compare " + from + " with " + to, e);
    }
  }

  /** Whether the repository holds {@code id} as a commit. */
  public boolean hasCommit(ObjectId id) {
    return Commits.has(repo, id);
  }

  /** Whether commit {@code descendant} is {@code ancestor} or has it in its history. */
  public boolean descendsFrom(ObjectId descendant, ObjectId ancestor) {
    return Commits.descends(repo, descendant, ancestor);
  }

  /** Closes the repository. */
  @Override
  public void close() {
    repo.close();
  }

  // ---------------------------------------------------------------- opening

  private static Repository initBare(Path dir, String branch) {
    try {
      Files.createDirectories(dir);
      Git.init().setBare(true).setDirectory(dir.toFile()).setInitialBranch(branch).call().close();
      Repository repo = openBare(dir);
      disableAutomaticGc(repo.getConfig());
      return repo;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create repository in " + dir, e);
    } catch (GitAPIException e) {
      throw new UncheckedIOException(new IOException("cannot create repository in " + dir, e));
    }
  }

  /**
   * The writer packs the repository itself ({@link GitTreeWriter#maybeRepack()}) on its own
   * thread; make sure no git tool decides to gc on its own, let alone in the background.
   */
  private static void disableAutomaticGc(StoredConfig config) throws IOException {
    config.setInt("gc", null, "auto", 0);
    config.setBoolean("gc", null, "autoDetach", false);
    config.save();
  }

  private static Repository openBare(Path dir) {
    try {
      Repository repo = new FileRepositoryBuilder().setGitDir(dir.toFile()).setMustExist(true).build();
      if (!repo.isBare()) {
        repo.close();
        throw new IllegalStateException(dir + " is not a bare git repository");
      }
      return repo;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open repository " + dir, e);
    }
  }

  /** HEAD of a bare repository names the default branch for clones; make it ours. */
  private void pointHeadAtBranch() {
    try {
      Ref head = repo.exactRef(Constants.HEAD);
      if (head != null && head.isSymbolic() && head.getTarget().getName().equals(refName)) {
        return;
      }
      RefUpdate update = repo.updateRef(Constants.HEAD);
      update.disableRefLog();
      RefUpdate.Result result = update.link(refName);
      if (result != RefUpdate.Result.NEW && result != RefUpdate.Result.FORCED
          && result != RefUpdate.Result.NO_CHANGE) {
        throw new IOException("cannot point HEAD at " + refName + ": " + result);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void addMissingSheetFiles(Map<String, PathChange> sheetFiles, PersonIdent systemIdent) {
    ObjectId head = head();
    List<PathChange> missing = new ArrayList<>();
    sheetFiles.forEach((path, file) -> {
      if (readFile(head, path) == null) {
        missing.add(file);
      }
    });
    if (missing.isEmpty()) {
      return;
    }
    String message = head == null ? INIT_MESSAGE : ADD_SHEETS_MESSAGE;
    PersonIdent now = new PersonIdent(systemIdent, Instant.now());
    try (GitTreeWriter writer = new GitTreeWriter(repo, branch)) {
      CommitResult result = writer.commit(head, missing, now, message);
      if (result instanceof CommitResult.Conflict) {
        throw new IllegalStateException(refName + " moved while adding sheet configuration");
      }
    }
  }

  // ---------------------------------------------------------------- object access

  private static ObjectId treeOf(ObjectReader reader, ObjectId commit) throws IOException {
    try (RevWalk walk = new RevWalk(reader)) {
      return walk.parseCommit(commit).getTree().copy();
    }
  }

  private static AbstractTreeIterator treeIterator(ObjectReader reader, ObjectId commit) throws IOException {
    if (commit == null) {
      return new EmptyTreeIterator();
    }
    CanonicalTreeParser parser = new CanonicalTreeParser();
    parser.reset(reader, treeOf(reader, commit));
    return parser;
  }

  /** Regular files, executables and symlinks are blobs; gitlinks (submodules) are not. */
  private static boolean isBlob(int rawMode) {
    return FileMode.fromBits(rawMode).getObjectType() == Constants.OBJ_BLOB;
  }

  /** A private copy of the blob's bytes (cached bytes may be shared with JGit's caches). */
  private static byte[] readBlob(ObjectReader reader, ObjectId blob) throws IOException {
    return reader.open(blob, Constants.OBJ_BLOB).getBytes(Integer.MAX_VALUE);
  }
}
