package io.shotstash.publicdata;

import io.shotstash.publicdata.git.DataRepository;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
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

  /** The whole state at the branch head. */
  public PublicState loadHead() {
    ObjectId head = repository.head();
    if (head == null) {
      return PublicState.empty();
    }
    List<RecordChange> records = new ArrayList<>();
    repository.readTree(head, (path, bytes) -> {
      RecordChange c = toChange(path, bytes);
      if (c != null) {
        records.add(c);
      }
    });
    return PublicState.empty().apply(head.name(), records);
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
    List<RecordChange> changes = new ArrayList<>();
    for (String path : repository.changedPaths(ObjectId.fromString(state.commit()), head)) {
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
