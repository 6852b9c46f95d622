package io.shotstash.publicdata.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;

/**
 * Builds a new root tree from a parent's tree and a list of path changes, without an index or a
 * working tree: only the trees on the changed paths are read and rewritten, every other tree is
 * reused by id. The trees are written with the caller's inserter; moving a branch to them is
 * {@link GitTreeWriter}'s business.
 */
final class TreeSplice {

  /** The changes, grouped by folder; checked for file/folder clashes among themselves. */
  private final FolderEdit edits;

  /**
   * @throws IllegalArgumentException if a name is used both as a file and as a folder in the changes
   */
  TreeSplice(List<PathChange> changes) {
    this.edits = FolderEdit.of(Objects.requireNonNull(changes, "changes"));
  }

  /**
   * The id of {@code parentTree} (null: none) with the changes applied, its new trees inserted;
   * an empty tree if everything was deleted.
   *
   * @throws IllegalArgumentException if a change needs a file where the parent has a folder of the
   *     same name, or the reverse
   */
  ObjectId applyTo(ObjectId parentTree, ObjectReader reader, ObjectInserter inserter) throws IOException {
    return new Splicer(reader, inserter).rewriteRoot(parentTree, edits);
  }

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
  private record Item(byte[] name, boolean isFolder, byte[] content, FolderEdit folder) {}

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
