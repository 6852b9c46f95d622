package io.shotstash.publicdata.git;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the repository packed while {@link GitTreeWriter} commits: each commit leaves loose
 * objects (a ~1 MB tree for a 20,000-record folder), so every so many commits they go into a pack
 * ({@link PackLayers} decides which), and now and then a full gc packs everything. Apart from
 * committing as JGit keeps {@code GC} apart from {@code CommitCommand}; like the writer, not
 * thread-safe on its own: {@link GitTreeWriter} calls it under its lock.
 */
final class PackMaintenance {

  /**
   * How long a pack replaced by a merge stays on disk, as JGit's gc keeps the packs it replaces
   * ({@code gc.prunePackExpire}, one hour): a reader in another process (a backup, a clone) that
   * listed it a moment ago can still read it.
   */
  static final long REPLACED_PACK_EXPIRE_MILLIS = 60 * 60 * 1000L;
  private static final Logger LOG = LoggerFactory.getLogger(PackMaintenance.class);

  private final Repository repo;
  private final BranchRef branch;
  private final int repackEvery;
  private final boolean fullGcs;
  private int commitsSinceRepack;
  /** What the packs hold since the last full gc, and when to merge them or gc (geometric repacking). */
  private final PackLayers layers = new PackLayers();
  /** Packs a merge replaced, deleted once {@link #REPLACED_PACK_EXPIRE_MILLIS} old. */
  private final List<Replaced> replaced = new ArrayList<>();
  private boolean closed;

  private record Replaced(List<File> files, long atMillis) {}

  /**
   * @param repackEvery how many commits {@link #maybeRepack()} waits before packing them
   * @param fullGcs     false: {@link #maybeRepack()} never runs the full gc that is due
   */
  PackMaintenance(Repository repo, BranchRef branch, int repackEvery, boolean fullGcs) {
    if (repackEvery < 1) {
      throw new IllegalArgumentException("repackEvery must be positive: " + repackEvery);
    }
    this.repo = repo;
    this.branch = branch;
    this.repackEvery = repackEvery;
    this.fullGcs = fullGcs;
  }

  /** The writer moved the branch to a new commit: its objects are loose until the next repack. */
  void committed() {
    commitsSinceRepack++;
  }

  /** See {@link GitTreeWriter#maybeRepack()}. */
  void maybeRepack() {
    if (commitsSinceRepack < repackEvery) {
      return;
    }
    ObjectId head = branch.head();
    if (!layers.known() || !(repo instanceof FileRepository) || head == null) {
      repackNow();
      return;
    }
    if (!head.equals(layers.packedUpTo())) {
      // decide on the count first, so that each repack writes exactly one pack (or runs the gc)
      long fresh = countObjects(layers.packedUpTo(), head);
      if (fullGcs && layers.fullGcDueWith(fresh)) {
        repackNow();
        return;
      }
      List<PackLayers.Layer> merge = layers.toMergeWith(fresh);
      if (merge.isEmpty()) {
        layers.add(writeLayer(layers.packedUpTo(), head));
      } else {
        PackLayers.Layer into = writeLayer(merge.get(0).from(), head);
        layers.merged(merge, into);
        replace(merge, into);
      }
    }
    deleteExpiredReplacedPacks(System.currentTimeMillis());
    commitsSinceRepack = 0;
  }

  /** See {@link GitTreeWriter#repackNow()}. */
  void repackNow() {
    ensureOpen();
    ObjectId head = branch.head();
    try {
      if (repo instanceof FileRepository file) {
        long objects = 0;
        for (Pack pack : new GC(file).gc().get()) {
          objects += pack.getIndex().getObjectCount();
        }
        layers.fullGc(head, objects);
      } else {
        try (Git git = Git.wrap(repo)) {
          git.gc().call();
        }
      }
    } catch (GitAPIException | IOException | java.text.ParseException | java.util.concurrent.ExecutionException e) {
      throw new UncheckedIOException(new IOException("git gc failed on " + repo.getDirectory(), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("git gc interrupted on " + repo.getDirectory(), e));
    }
    commitsSinceRepack = 0;
  }

  /** Objects the last full gc packed (-1: none since this writer was made). */
  long objectsInFullGc() {
    return layers.baseObjects();
  }

  /** Objects in the packs made since the last full gc (they trigger the next one). */
  long objectsPackedSinceFullGc() {
    return layers.layeredObjects();
  }

  /** Pack files made since the last full gc (after merges). */
  int packsSinceFullGc() {
    return layers.layers().size();
  }

  /**
   * One new pack of the objects reachable from {@code to} but not from {@code from} (already
   * packed), then {@code git prune-packed} deletes the loose copies. The pack file is written
   * first and its index last, each under a temporary name and renamed into place, so a reader
   * never sees half a pack; a loose object is deleted only once a pack holds it. Loose objects no
   * commit reaches (a lost compare-and-set) stay until the next full gc.
   */
  private PackLayers.Layer writeLayer(ObjectId from, ObjectId to) {
    ensureOpen();
    File packDir = ((ObjectDirectory) repo.getObjectDatabase()).getPackDirectory();
    File pack = null;
    File index = null;
    try (ObjectReader reader = repo.newObjectReader();
        PackWriter packer = new PackWriter(new PackConfig(repo), reader)) {
      packer.preparePack(NullProgressMonitor.INSTANCE, Set.of(to), Set.of(from));
      long objects = packer.getObjectCount();
      String name = null;
      if (objects > 0) {
        pack = File.createTempFile("incoming_", ".pack.tmp", packDir);
        index = File.createTempFile("incoming_", ".idx.tmp", packDir);
        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(pack))) {
          packer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
        }
        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(index))) {
          packer.writeIndex(out);
        }
        readOnlyForAll(pack);
        readOnlyForAll(index);
        name = "pack-" + packer.computeName().name();
        Files.move(pack.toPath(), packDir.toPath().resolve(name + ".pack"), StandardCopyOption.ATOMIC_MOVE);
        Files.move(index.toPath(), packDir.toPath().resolve(name + ".idx"), StandardCopyOption.ATOMIC_MOVE);
        new GC((FileRepository) repo).prunePacked();
      }
      return new PackLayers.Layer(from, to, objects, name);
    } catch (IOException e) {
      throw new UncheckedIOException("packing the commits of " + repo.getDirectory() + " up to " + to.name()
          + " failed", e);
    } finally {
      deleteQuietly(pack);
      deleteQuietly(index);
    }
  }

  /** How many objects are reachable from {@code to} but not from {@code from}: a walk, no packing. */
  private long countObjects(ObjectId from, ObjectId to) {
    try (ObjectWalk walk = new ObjectWalk(repo)) {
      walk.markStart(walk.parseAny(to));
      walk.markUninteresting(walk.parseAny(from));
      long count = 0;
      while (walk.next() != null) {
        count++;
      }
      while (walk.nextObject() != null) {
        count++;
      }
      return count;
    } catch (IOException e) {
      throw new UncheckedIOException("counting the objects of " + repo.getDirectory() + " up to " + to.name()
          + " failed", e);
    }
  }

  /** The packs of {@code merged} are in {@code into} now: they go once expired (a merge of one name keeps it). */
  private void replace(List<PackLayers.Layer> merged, PackLayers.Layer into) {
    File packDir = ((ObjectDirectory) repo.getObjectDatabase()).getPackDirectory();
    List<File> files = new ArrayList<>();
    for (PackLayers.Layer layer : merged) {
      if (layer.packName() != null && !layer.packName().equals(into.packName())) {
        files.add(new File(packDir, layer.packName() + ".idx")); // the index first, as git deletes them
        files.add(new File(packDir, layer.packName() + ".pack"));
      }
    }
    if (!files.isEmpty()) {
      replaced.add(new Replaced(files, System.currentTimeMillis()));
    }
  }

  /**
   * Deletes the replaced packs older than {@link #REPLACED_PACK_EXPIRE_MILLIS}. JGit lists packs
   * newest first, so the merged pack answers for their objects long before; should a lookup still
   * reach a deleted one, JGit drops it from its list.
   */
  void deleteExpiredReplacedPacks(long nowMillis) {
    for (var it = replaced.iterator(); it.hasNext();) {
      Replaced r = it.next();
      if (nowMillis - r.atMillis() >= REPLACED_PACK_EXPIRE_MILLIS) {
        r.files().forEach(PackMaintenance::deleteQuietly);
        it.remove();
      }
    }
  }

  /** From now on nothing is packed (the writer is closed). */
  void close() {
    closed = true;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("GitTreeWriter is closed");
    }
  }

  /** As git leaves its packs (0444): a temporary file starts readable by its owner only. */
  private static void readOnlyForAll(File f) throws IOException {
    try {
      Files.setPosixFilePermissions(f.toPath(), PosixFilePermissions.fromString("r--r--r--"));
    } catch (UnsupportedOperationException e) {
      if (!f.setReadOnly()) {
        LOG.warn("could not make {} read-only", f);
      }
    }
  }

  /** Removes a temporary file that was not renamed into place (the rename moved it otherwise). */
  private static void deleteQuietly(File f) {
    if (f != null && f.exists() && !f.delete()) {
      LOG.warn("could not delete {}", f);
    }
  }
}
