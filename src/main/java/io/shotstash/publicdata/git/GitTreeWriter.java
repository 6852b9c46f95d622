package io.shotstash.publicdata.git;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes commits straight into a (bare) repository, without an index or a working tree.
 *
 * <p>Each {@link #commit} starts from the parent's tree and splices the changes in: only the
 * trees on the changed paths are read and rewritten, every other tree is reused by id. Changing
 * {@code people/jane.toml} therefore writes one blob, the {@code people} tree, the root tree and
 * the commit, however many records live elsewhere (the one unavoidable cost: a folder's tree
 * object lists all its entries, so a 20,000-record folder means rewriting a ~1 MB tree). Commits
 * of 1,000 or more changes write a single pack file instead of loose objects. The branch is then
 * moved with a compare-and-set ref update, so a stale writer gets a {@link CommitResult.Conflict}
 * instead of overwriting someone else's commit.
 *
 * <p>This is the only class that writes git objects or moves the branch. Everything here is
 * blocking file I/O: call it from a worker thread, never from a Vert.x event loop. The public
 * methods are synchronized, but the design assumes one writer thread; I/O failures surface as
 * {@link UncheckedIOException}. The writer does not own the {@link Repository}: {@link #close()}
 * leaves it open.
 */
public final class GitTreeWriter implements AutoCloseable {

    /** How many commits {@link #maybeRepack()} lets accumulate before packing loose objects. */
    public static final int DEFAULT_REPACK_EVERY = 500;
    /**
     * How long a pack replaced by a merge stays on disk, as JGit's gc keeps the packs it replaces
     * ({@code gc.prunePackExpire}, one hour): a reader in another process (a backup, a clone) that
     * listed it a moment ago can still read it.
     */
    static final long REPLACED_PACK_EXPIRE_MILLIS = 60 * 60 * 1000L;
    /** A branch lock older than this was left by a writer that died mid-update (an update holds it for milliseconds). */
    static final long STALE_LOCK_MILLIS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(GitTreeWriter.class);

    /** Commits with at least this many changes write their objects as one pack file. */
    static final int BULK_CHANGES = 1_000;

    private final Repository repo;
    private final String refName;
    private final int repackEvery;
    private final boolean fullGcs;
    private int commitsSinceRepack;
    /** What the packs hold since the last full gc, and when to merge them or gc (geometric repacking). */
    private final PackLayers layers = new PackLayers();
    /** Packs a merge replaced, deleted once {@link #REPLACED_PACK_EXPIRE_MILLIS} old. */
    private final List<Replaced> replaced = new ArrayList<>();
    private boolean closed;

    private record Replaced(List<File> files, long atMillis) {}

    /** A writer for {@code refs/heads/<branch>} that repacks every {@value #DEFAULT_REPACK_EVERY} commits. */
    public GitTreeWriter(Repository repo, String branch) {
        this(repo, branch, DEFAULT_REPACK_EVERY);
    }

    /**
     * A writer for {@code refs/heads/<branch>}.
     *
     * @param repackEvery how many commits {@link #maybeRepack()} waits before packing them
     */
    public GitTreeWriter(Repository repo, String branch, int repackEvery) {
        this(repo, branch, repackEvery, true);
    }

    /**
     * A writer for {@code refs/heads/<branch>}; with {@code fullGcs} false, {@link #maybeRepack()}
     * packs and merges layers but never runs the full gc that is due (benchmarks time it apart with
     * {@link #repackNow} and spread it over the commits the policy lets pass before it).
     */
    public GitTreeWriter(Repository repo, String branch, int repackEvery, boolean fullGcs) {
        this.fullGcs = fullGcs;
        this.repo = Objects.requireNonNull(repo, "repo");
        this.refName = Constants.R_HEADS + Objects.requireNonNull(branch, "branch");
        if (!Repository.isValidRefName(refName)) {
            throw new IllegalArgumentException("invalid branch name: " + branch);
        }
        if (repackEvery < 1) {
            throw new IllegalArgumentException("repackEvery must be positive: " + repackEvery);
        }
        this.repackEvery = repackEvery;
    }

    /** The commit the branch points at, or {@code null} while the branch is unborn. */
    public ObjectId head() {
        try {
            Ref ref = repo.exactRef(refName);
            return ref == null || ref.getObjectId() == null ? null : ref.getObjectId().copy();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + refName, e);
        }
    }

    /**
     * Applies {@code changes} on top of {@code expectedParent} and moves the branch to the result.
     *
     * <p>Later changes to the same path win over earlier ones. Deleting a path that holds no file
     * is a no-op; folders left empty disappear. A path that would need a file and a folder of the
     * same name (in the changes, or against the parent's tree) is rejected with
     * {@link IllegalArgumentException} before anything is committed.
     *
     * @param expectedParent the commit the branch must point at; {@code null} for an unborn branch
     * @param author         used as author and committer
     * @param message        the commit message, stored verbatim
     * @return {@link CommitResult.Committed}, {@link CommitResult.NoChange} if the tree would not
     *     change (nothing written), or {@link CommitResult.Conflict} if the branch was elsewhere
     */
    public synchronized CommitResult commit(ObjectId expectedParent, List<PathChange> changes,
            PersonIdent author, String message) {
        ensureOpen();
        Objects.requireNonNull(author, "author");
        Objects.requireNonNull(message, "message");
        FolderEdit edits = FolderEdit.of(Objects.requireNonNull(changes, "changes"));
        ObjectId actual = head();
        if (!sameId(actual, expectedParent)) {
            return new CommitResult.Conflict(actual); // cheap early exit: write no objects at all
        }
        try (ObjectInserter inserter = newInserter(changes.size());
                ObjectReader reader = inserter.newReader();
                RevWalk walk = new RevWalk(reader)) {
            ObjectId parent = expectedParent == null ? null : expectedParent.copy();
            ObjectId parentTree = parent == null ? null : walk.parseCommit(parent).getTree().copy();
            ObjectId newTree = new Splicer(reader, inserter).rewriteRoot(parentTree, edits);
            if (sameId(newTree, parentTree == null ? Constants.EMPTY_TREE_ID : parentTree)) {
                return new CommitResult.NoChange();
            }
            ObjectId commit = inserter.insert(commitBuilder(newTree, parent, author, message));
            inserter.flush();
            return publish(parent, commit, walk, author, message);
        } catch (IOException e) {
            throw new UncheckedIOException("commit on " + refName + " failed", e);
        }
    }

    /** Moves the branch from {@code parent} to the freshly written {@code commit}, or reports the conflict. */
    private CommitResult publish(ObjectId parent, ObjectId commit, RevWalk walk, PersonIdent author,
            String message) throws IOException {
        RefUpdate.Result result = updateRef(parent, commit, false, walk, author, "commit: " + firstLine(message));
        if (!succeeded(result)) {
            return new CommitResult.Conflict(head()); // lost the race after the early check
        }
        commitsSinceRepack++;
        return new CommitResult.Committed(commit, parent);
    }

    /**
     * Moves the branch from {@code from} to {@code to} if, and only if, it currently points at
     * {@code from}. Used to put the branch back when a step after {@link #commit} fails; the move
     * need not be a fast-forward.
     *
     * @param from the commit the branch must point at, or {@code null} if it must be unborn
     * @param to   the commit to point at (an existing commit; the branch cannot be made unborn)
     * @return {@code false} if the branch was not at {@code from} (nothing moved)
     */
    public synchronized boolean moveBranch(ObjectId from, ObjectId to) {
        ensureOpen();
        Objects.requireNonNull(to, "to");
        try (RevWalk walk = new RevWalk(repo)) {
            return succeeded(updateRef(from, to, true, walk, null, "move branch"));
        } catch (IOException e) {
            throw new UncheckedIOException("moving " + refName + " failed", e);
        }
    }

    /**
     * Packs loose objects once {@code repackEvery} commits have been made since the last pack
     * (geometric repacking, {@link PackLayers}): one new pack of the objects of those commits, or,
     * like the digits of a binary counter, one pack of them and the newest packs when the pack below
     * those is less than twice their size; or a full git gc ({@link #repackNow}) once the packs made
     * since the last one hold as many objects as it packed, or when nothing is known yet (the first
     * repack after a start). Runs synchronously on the calling thread, so call it from the writer's
     * thread right after a commit (never from an event loop).
     */
    public synchronized void maybeRepack() {
        if (commitsSinceRepack < repackEvery) {
            return;
        }
        ObjectId head = head();
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

    /**
     * Runs git gc now: packs every reachable object and the refs. Only loose objects older than
     * the gc prune expiry (two weeks by default) are deleted, so objects of a commit that was just
     * written, or of a concurrent reader's snapshot, are never lost; the packs it replaces stay for
     * {@code gc.prunePackExpire} (one hour).
     */
    public synchronized void repackNow() {
        ensureOpen();
        ObjectId head = head();
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

    /** Objects the last full gc of this writer packed (-1: none since it was made). */
    public synchronized long objectsInFullGc() {
        return layers.baseObjects();
    }

    /** Objects in the packs this writer made since its last full gc (they trigger the next one). */
    public synchronized long objectsPackedSinceFullGc() {
        return layers.layeredObjects();
    }

    /** Pack files this writer made since its last full gc (after merges). */
    public synchronized int packsSinceFullGc() {
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
        try (ObjectReader reader = repo.newObjectReader(); PackWriter packer = new PackWriter(new PackConfig(repo), reader)) {
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
        for (var it = replaced.iterator(); it.hasNext(); ) {
            Replaced r = it.next();
            if (nowMillis - r.atMillis() >= REPLACED_PACK_EXPIRE_MILLIS) {
                r.files().forEach(GitTreeWriter::deleteQuietly);
                it.remove();
            }
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

    /**
     * Marks the writer closed. Inserters and readers are opened per call and already released;
     * the repository belongs to whoever opened it and stays open.
     */
    @Override
    public synchronized void close() {
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("GitTreeWriter is closed");
        }
    }

    // ---------------------------------------------------------------- ref and commit plumbing

    /**
     * Compare-and-set on the branch. The expected old id is always set (zero id for "unborn"), so
     * even with {@code force} (which only skips JGit's fast-forward check) a branch that moved
     * underneath us yields LOCK_FAILURE instead of being overwritten.
     */
    private RefUpdate.Result updateRef(ObjectId from, ObjectId to, boolean force, RevWalk walk,
            PersonIdent ident, String reflogMessage) throws IOException {
        RefUpdate.Result result = tryUpdateRef(from, to, force, walk, ident, reflogMessage);
        if (result == RefUpdate.Result.LOCK_FAILURE && sameId(head(), from) && breakStaleLock()) {
            result = tryUpdateRef(from, to, force, walk, ident, reflogMessage);
        }
        return result;
    }

    /**
     * Removes the branch's lock file when a writer that died (kill -9, a crash) while moving the
     * branch left it behind: the branch is still where we expect it, and the lock is older than
     * {@link #STALE_LOCK_MILLIS}, far longer than any update holds it. Without this, every later
     * update would fail with LOCK_FAILURE until someone deleted the file by hand.
     */
    private boolean breakStaleLock() {
        File lock = new File(repo.getDirectory(), refName + ".lock");
        long modified = lock.lastModified(); // 0 when there is no lock file
        if (modified == 0 || System.currentTimeMillis() - modified < STALE_LOCK_MILLIS) {
            return false;
        }
        boolean deleted = lock.delete();
        if (deleted) {
            LOG.warn("removed {}, left by a writer that stopped while moving the branch", lock);
        }
        return deleted;
    }

    private RefUpdate.Result tryUpdateRef(ObjectId from, ObjectId to, boolean force, RevWalk walk,
            PersonIdent ident, String reflogMessage) throws IOException {
        RefUpdate update = repo.updateRef(refName);
        update.setExpectedOldObjectId(from == null ? ObjectId.zeroId() : from);
        update.setNewObjectId(to);
        update.setForceUpdate(force);
        if (ident != null) {
            update.setRefLogIdent(ident);
        }
        update.setRefLogMessage(reflogMessage, false);
        return update.update(walk);
    }

    /** True if the branch moved (or already was at the target), false if the CAS lost. */
    private boolean succeeded(RefUpdate.Result result) throws IOException {
        return switch (result) {
            case NEW, FAST_FORWARD, FORCED, NO_CHANGE -> true;
            case LOCK_FAILURE, REJECTED -> false;
            default -> throw new IOException("cannot update " + refName + ": " + result);
        };
    }

    private static CommitBuilder commitBuilder(ObjectId tree, ObjectId parent, PersonIdent author,
            String message) {
        CommitBuilder commit = new CommitBuilder();
        commit.setTreeId(tree);
        if (parent != null) {
            commit.setParentId(parent);
        }
        commit.setAuthor(author);
        commit.setCommitter(author);
        commit.setMessage(message);
        return commit;
    }

    /**
     * Loose objects for a normal commit (a handful of files); one pack file for a bulk commit.
     * Importing, say, 20,000 records as loose objects means creating 20,000 files now and
     * deleting them again at the next gc, which takes seconds; a pack is one sequential write.
     */
    private ObjectInserter newInserter(int changeCount) {
        if (changeCount >= BULK_CHANGES && repo.getObjectDatabase() instanceof ObjectDirectory objects) {
            return objects.newPackInserter();
        }
        return repo.newObjectInserter();
    }

    /** Null-safe id comparison (RevObjects and ObjectIds compare by id). */
    private static boolean sameId(AnyObjectId a, AnyObjectId b) {
        return a == null || b == null ? a == b : AnyObjectId.isEqual(a, b);
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    // ---------------------------------------------------------------- tree splicing

    /**
     * Git's canonical order of tree entries: names compare byte by byte, except that a sub-tree
     * compares as if its name ended with '/'. So in one folder the file {@code a.toml} ('.' is
     * 0x2e) sorts before the folder {@code a} (compared as "a/", 0x2f), which sorts before the
     * file {@code a0.toml} (0x30), while a file named {@code a} would sort before {@code a-b.toml}.
     *
     * <p>Why: git keeps tree order consistent with the order of full paths in its index, which is
     * plain byte order. Inside a folder, a sub-tree {@code a} stands for the paths {@code a/...},
     * and those sort exactly where the name {@code a/} would. A tree written in any other order
     * gets a different id than git computes for the same content, and {@code git fsck} rejects
     * it; sorting by plain name is the classic bug here.
     */
    static int compareGitOrder(byte[] a, int aOffset, int aLength, boolean aIsTree,
            byte[] b, int bOffset, int bLength, boolean bIsTree) {
        int common = Math.min(aLength, bLength);
        for (int i = 0; i < common; i++) {
            int diff = (a[aOffset + i] & 0xff) - (b[bOffset + i] & 0xff);
            if (diff != 0) {
                return diff;
            }
        }
        // One name is a prefix of the other (or both are equal): compare the next byte, where a
        // name that has ended contributes '/' if it is a tree and nothing (0) if it is not.
        int nextA = aLength > common ? a[aOffset + common] & 0xff : (aIsTree ? '/' : 0);
        int nextB = bLength > common ? b[bOffset + common] & 0xff : (bIsTree ? '/' : 0);
        return nextA - nextB;
    }

    /**
     * The changes aimed at one folder, grouped by name: files to put ({@code byte[]}) or delete
     * ({@code null}), and the edits of sub-folders. Grouping lets each tree be rewritten once per
     * commit however many of its entries change.
     */
    private static final class FolderEdit {
        final Map<String, byte[]> files = new HashMap<>();
        final Map<String, FolderEdit> folders = new HashMap<>();

        static FolderEdit of(List<PathChange> changes) {
            FolderEdit root = new FolderEdit();
            for (PathChange change : changes) {
                String[] segments = change.segments();
                FolderEdit folder = root;
                for (int i = 0; i < segments.length - 1; i++) {
                    folder = folder.subfolder(segments[i], change.path());
                }
                folder.file(segments[segments.length - 1], change.content(), change.path());
            }
            return root;
        }

        private FolderEdit subfolder(String name, String path) {
            if (files.containsKey(name)) {
                throw new IllegalArgumentException("'" + name + "' is used both as a file and as a folder, at " + path);
            }
            return folders.computeIfAbsent(name, n -> new FolderEdit());
        }

        private void file(String name, byte[] content, String path) {
            if (folders.containsKey(name)) {
                throw new IllegalArgumentException("'" + name + "' is used both as a file and as a folder, at " + path);
            }
            files.put(name, content); // a later change to the same path replaces an earlier one
        }

        /** Whether applying this edit can create anything (a folder of only deletes cannot). */
        boolean hasPuts() {
            return files.values().stream().anyMatch(Objects::nonNull)
                    || folders.values().stream().anyMatch(FolderEdit::hasPuts);
        }

        /** The edits as entries in git order, ready to be merged with the existing entries. */
        List<Item> sortedItems() {
            List<Item> items = new ArrayList<>(files.size() + folders.size());
            files.forEach((name, content) -> items.add(new Item(utf8(name), false, content, null)));
            folders.forEach((name, edit) -> items.add(new Item(utf8(name), true, null, edit)));
            items.sort((x, y) -> compareGitOrder(x.name, 0, x.name.length, x.isFolder,
                    y.name, 0, y.name.length, y.isFolder));
            return items;
        }

        private static byte[] utf8(String name) {
            return name.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** One edited name in a folder: a file put/delete, or a sub-folder to rewrite. */
    private record Item(byte[] name, boolean isFolder, byte[] content, FolderEdit folder) {
    }

    /**
     * Rewrites the trees along the edited paths, bottom-up. Each folder is a merge of two sorted
     * sequences, its existing entries and its edits, both in git order; untouched entries are
     * copied as raw bytes, so an untouched sub-tree is never read.
     */
    private static final class Splicer {
        private final ObjectReader reader;
        private final ObjectInserter inserter;

        Splicer(ObjectReader reader, ObjectInserter inserter) {
            this.reader = reader;
            this.inserter = inserter;
        }

        /** The new root tree id; an empty tree if everything was deleted. */
        ObjectId rewriteRoot(ObjectId tree, FolderEdit edit) throws IOException {
            ObjectId root = rewrite(tree, edit);
            return root != null ? root : inserter.insert(new TreeFormatter());
        }

        /** The id of {@code tree} (null: none) with {@code edit} applied, or null if it ends up empty. */
        private ObjectId rewrite(ObjectId tree, FolderEdit edit) throws IOException {
            byte[] raw = readTree(tree);
            CanonicalTreeParser entries = new CanonicalTreeParser();
            entries.reset(raw);
            List<Item> items = edit.sortedItems();
            TreeFormatter out = new TreeFormatter(raw.length + extraSize(items));
            int written = 0;
            int next = 0;
            while (!entries.eof() || next < items.size()) {
                int cmp = entries.eof() ? 1 : next == items.size() ? -1 : compare(entries, items.get(next));
                if (cmp < 0) { // existing entry nobody touches
                    checkNoFileFolderClash(entries, edit);
                    written += copy(entries, out);
                    entries.next(1);
                } else if (cmp > 0) { // edit of a name that does not exist yet
                    written += apply(items.get(next++), null, out);
                } else { // edit of an existing entry of the same name and kind
                    written += apply(items.get(next++), entries.getEntryObjectId(), out);
                    entries.next(1);
                }
            }
            return written == 0 ? null : out.insertTo(inserter);
        }

        /** The raw bytes of a tree object; none for a folder that does not exist yet. */
        private byte[] readTree(ObjectId tree) throws IOException {
            // Big folders (20,000 records) make trees of a megabyte: never stream, always load.
            return tree == null ? new byte[0] : reader.open(tree, Constants.OBJ_TREE).getCachedBytes(Integer.MAX_VALUE);
        }

        /** Writes the item's resulting entry, if any; returns the number of entries written. */
        private int apply(Item item, ObjectId existing, TreeFormatter out) throws IOException {
            if (item.isFolder()) {
                ObjectId subtree = rewrite(existing, item.folder());
                if (subtree == null) {
                    return 0; // folder is empty now (or never existed): drop it
                }
                out.append(item.name(), FileMode.TREE, subtree);
                return 1;
            }
            if (item.content() == null) {
                return 0; // delete: leave the entry out (nothing to do if it did not exist)
            }
            ObjectId blob = inserter.insert(Constants.OBJ_BLOB, item.content());
            out.append(item.name(), FileMode.REGULAR_FILE, blob);
            return 1;
        }

        private static int copy(CanonicalTreeParser entry, TreeFormatter out) {
            out.append(entry.getEntryPathBuffer(), entry.getNameOffset(), entry.getNameLength(),
                    FileMode.fromBits(entry.getEntryRawMode()), entry.idBuffer(), entry.idOffset());
            return 1;
        }

        private static int compare(CanonicalTreeParser entry, Item item) {
            return compareGitOrder(entry.getEntryPathBuffer(), entry.getNameOffset(), entry.getNameLength(),
                    isTree(entry), item.name(), 0, item.name().length, item.isFolder());
        }

        /**
         * A file and a folder of the same name sort apart (see {@link #compareGitOrder}), so the
         * merge cannot see the clash by position; look the untouched entry's name up instead.
         * Only names of the other kind can clash, and usually there are none, so the common case
         * does not even decode the name.
         */
        private static void checkNoFileFolderClash(CanonicalTreeParser entry, FolderEdit edit) {
            boolean entryIsTree = isTree(entry);
            if (entryIsTree ? edit.files.isEmpty() : edit.folders.isEmpty()) {
                return;
            }
            String name = entry.getEntryPathString();
            boolean clash = entryIsTree
                    ? edit.files.get(name) != null // deleting a "file" that is a folder: no-op
                    : edit.folders.containsKey(name) && edit.folders.get(name).hasPuts();
            if (clash) {
                throw new IllegalArgumentException("cannot write a " + (entryIsTree ? "file" : "folder")
                        + " named '" + name + "': a " + (entryIsTree ? "folder" : "file") + " of that name exists");
            }
        }

        private static boolean isTree(CanonicalTreeParser entry) {
            return FileMode.TREE.equals(entry.getEntryRawMode());
        }

        private static int extraSize(List<Item> items) {
            int size = 0;
            for (Item item : items) {
                size += TreeFormatter.entrySize(FileMode.REGULAR_FILE, item.name().length);
            }
            return size;
        }
    }
}
