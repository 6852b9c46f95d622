package io.shotstash.publicdata;

import io.shotstash.publicdata.git.DataRepository;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Reads records out of the repository into a {@link PublicState}: all of them at start, or just the
 * paths that changed between two commits when a replica catches up. Blocking (JGit).
 */
public final class PublicStateLoader {
  private final DataRepository repository;
  private final TomlCodec codec;

  public PublicStateLoader(DataRepository repository, TomlCodec codec) {
    this.repository = repository;
    this.codec = codec;
  }

  /**
   * The whole state at the branch head. This thread walks the tree and reads the blobs; the records
   * are decoded in batches on the common fork-join pool meanwhile (decoding TOML is most of the
   * work), and this thread decodes what is left once the walk is done.
   */
  public PublicState loadHead() {
    ObjectId head = repository.head();
    if (head == null) {
      return PublicState.empty();
    }
    List<ForkJoinTask<List<RecordChange>>> batches = new ArrayList<>();
    List<String> paths = new ArrayList<>(DECODE_BATCH);
    List<byte[]> contents = new ArrayList<>(DECODE_BATCH);
    repository.readTree(head, (path, bytes) -> {
      paths.add(path);
      contents.add(bytes);
      if (paths.size() == DECODE_BATCH) {
        batches.add(ForkJoinPool.commonPool().submit(decodeTask(List.copyOf(paths), List.copyOf(contents))));
        paths.clear();
        contents.clear();
      }
    });
    batches.add(ForkJoinPool.commonPool().submit(decodeTask(List.copyOf(paths), List.copyOf(contents))));
    // Newest first: a batch no pool thread has taken yet is then on top of the submission queue, and
    // join() runs it on this thread instead of waiting.
    List<RecordChange> records = new ArrayList<>();
    for (int i = batches.size() - 1; i >= 0; i--) {
      records.addAll(join(batches.get(i)));
    }
    return PublicState.of(head.name(), records);
  }

  /** How many files one decoding task takes. */
  private static final int DECODE_BATCH = 256;

  private Callable<List<RecordChange>> decodeTask(List<String> paths, List<byte[]> contents) {
    return () -> {
      List<RecordChange> out = new ArrayList<>(paths.size());
      for (int i = 0; i < paths.size(); i++) {
        RecordChange c = toChange(paths.get(i), contents.get(i));
        if (c != null) {
          out.add(c);
        }
      }
      return out;
    };
  }

  /** The batch's records; a record that does not decode fails the whole load with its own message. */
  private static List<RecordChange> join(ForkJoinTask<List<RecordChange>> batch) {
    try {
      return batch.join();
    } catch (RuntimeException e) {
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof IllegalStateException)) {
        cause = cause.getCause();
      }
      throw cause instanceof IllegalStateException ise ? ise : e;
    }
  }

  /** A state loaded at start, and how. */
  public record Loaded(PublicState state, String how, boolean snapshotIsCurrent) {}

  /**
   * The whole state at the branch head from {@code snapshot} (what a snapshot file holds, read by
   * the caller: see {@link StateSnapshot}), moved forward to the head when its commit is not the
   * head's; else, when it cannot be used, by the full {@link #loadHead()}. {@code snapshotIsCurrent}
   * says whether the snapshot already holds the head's state.
   */
  public Loaded loadHead(StateSnapshot.Result snapshot) {
    ObjectId head = repository.head();
    if (head == null) {
      return new Loaded(PublicState.empty(), "an empty repository", true);
    }
    String why = snapshot.unusable();
    if (snapshot.state() != null) {
      PublicState copy = snapshot.state();
      if (copy.commit().equals(head.name())) {
        return new Loaded(copy, "from the snapshot at the head", true);
      }
      try {
        List<String> changed = repository.changedPaths(ObjectId.fromString(copy.commit()), head);
        return new Loaded(apply(copy, head, changed), "from the snapshot at " + copy.commit().substring(0, 12)
            + " and the " + changed.size() + " paths changed since", false);
      } catch (RuntimeException e) { // the snapshot's commit is not in this repository, or is not a commit
        why = "the snapshot's commit cannot be compared with the head: " + e.getMessage();
      }
    }
    return new Loaded(loadHead(), "from every file (" + why + ")", false);
  }

  /** {@code state} moved forward to the branch head, reading only the paths that changed. */
  public PublicState catchUp(PublicState state) {
    ObjectId head = repository.head();
    if (head == null || head.name().equals(state.commit())) {
      return state;
    }
    if (state.commit() == null) {
      return loadHead();
    }
    return apply(state, head, repository.changedPaths(ObjectId.fromString(state.commit()), head));
  }

  /**
   * {@code state} moved to {@code target}, the branch fence's recorded head (replicas follow it, not
   * the branch: docs/public-data.md → The branch fence), reading only the paths that changed. A
   * state already ahead of it (a commit pushed by hand on top, read at start before the writer took
   * it in) stays where it is; a target the repository does not have (the fence names another
   * repository's commit: operations.md → The branch fence) falls back to the branch.
   */
  public PublicState catchUpTo(PublicState state, ObjectId target) {
    if (target.name().equals(state.commit())) {
      return state;
    }
    if (!repository.hasCommit(target)) {
      return catchUp(state);
    }
    if (state.commit() == null) {
      return apply(PublicState.empty(), target, repository.changedPaths(null, target));
    }
    ObjectId at = ObjectId.fromString(state.commit());
    if (repository.hasCommit(at) && repository.descendsFrom(at, target)) {
      return state;
    }
    return apply(state, target, repository.changedPaths(at, target));
  }

  /** {@code state} with the records at {@code paths} read again at {@code head}. */
  private PublicState apply(PublicState state, ObjectId head, List<String> paths) {
    List<RecordChange> changes = new ArrayList<>();
    for (String path : paths) {
      RecordChange c = toChange(path, repository.readFile(head, path));
      if (c != null) {
        changes.add(c);
      }
    }
    return state.apply(head.name(), changes);
  }

  /** The change that puts (bytes present) or removes (bytes null) the record at {@code path}; null if no record. */
  RecordChange toChange(String path, byte[] bytes) {
    int slash = path.indexOf('/');
    if (slash < 0) {
      return null;
    }
    Sheet sheet = Sheet.byName(path.substring(0, slash));
    if (sheet == null || !path.endsWith(sheet.extension())) {
      return null; // .gitsheets/, README files and anything else that is not a record
    }
    String key = path.substring(slash + 1, path.length() - sheet.extension().length());
    if (bytes == null) {
      return RecordChange.delete(sheet, key);
    }
    try {
      return RecordChange.put(sheet, key, codec.decode(sheet, bytes));
    } catch (UncheckedIOException e) {
      throw new IllegalStateException(path + ": " + e.getMessage(), e);
    }
  }
}
