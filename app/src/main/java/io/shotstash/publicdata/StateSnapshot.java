package io.shotstash.publicdata;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A copy of a whole {@link PublicState} in one binary file, so that a start can skip decoding every
 * TOML file of the repository. It is only ever a cache of what git holds at one commit
 * (docs/public-data.md): the loader takes it when its format and record classes are this build's,
 * moves it to the branch head by reading only the paths that changed since its commit, and falls
 * back to the full load on anything else. Public records only; nothing private is in it. Blocking
 * file I/O.
 *
 * <p>Layout (big-endian, as {@link DataOutputStream} writes): the magic line, the format, the
 * fingerprint of the record classes, the commit and the record count; then per record its sheet
 * (ordinal), its key and the record as {@link RecordLayout} writes it (strings here as there).
 */
public final class StateSnapshot {
  /** Bumped whenever the layout above, or {@link RecordLayout}'s, changes. */
  static final int FORMAT = 1;

  /** The record classes this build reads and writes: a snapshot of other classes is not used. */
  static final String FINGERPRINT = RecordLayout.fingerprint(FORMAT);

  private static final byte[] MAGIC = "shotstash public-state snapshot\n".getBytes(StandardCharsets.US_ASCII);

  /** What a snapshot holds: the commit it copies and every record of it. */
  public record Contents(String commit, List<RecordChange> records) {}

  /** The state a snapshot file holds, or why it cannot be used. */
  public record Result(PublicState state, String unusable) {
    public static Result unusable(String why) {
      return new Result(null, why);
    }
  }

  /** Reads {@code file} and builds the state it holds; never throws. */
  public Result load(Path file) {
    try {
      Contents contents = read(file);
      return new Result(PublicState.of(contents.commit(), contents.records()), null);
    } catch (Unusable e) {
      return Result.unusable(e.getMessage());
    } catch (RuntimeException e) {
      return Result.unusable("the snapshot's records do not make a state: " + e);
    }
  }

  /** Why a snapshot was not used. */
  public static final class Unusable extends Exception {
    Unusable(String why) {
      super(why);
    }
  }

  /** Writes {@code state} to {@code file}, replacing it only once the new copy is complete. */
  public void write(Path file, PublicState state) throws IOException {
    if (state.commit() == null) {
      return;
    }
    // a name of its own: nodes of a cluster share the data folder and may write at the same time
    Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName() + ".", ".tmp");
    try {
      try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
        out.write(MAGIC);
        out.writeInt(FORMAT);
        RecordLayout.writeString(out, FINGERPRINT);
        RecordLayout.writeString(out, state.commit());
        out.writeInt(state.records());
        for (Sheet sheet : Sheet.values()) {
          for (Map.Entry<String, Object> e : state.entries(sheet)) {
            out.writeByte(sheet.ordinal());
            RecordLayout.writeString(out, e.getKey());
            RecordLayout.write(out, sheet, e.getValue());
          }
        }
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp); // only left when the write or the move failed
    }
  }

  /** Whether {@code file} is a snapshot of this build at {@code commit} (its header says so). */
  public boolean holds(Path file, String commit) {
    if (commit == null || !Files.isRegularFile(file)) {
      return false;
    }
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 512))) {
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      return Arrays.equals(magic, MAGIC) && in.readInt() == FORMAT && FINGERPRINT.equals(readString(in))
          && commit.equals(readString(in));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** The snapshot in {@code file}; {@link Unusable} when it is missing, of another build, or broken. */
  public Contents read(Path file) throws Unusable {
    if (!Files.isRegularFile(file)) {
      throw new Unusable("no snapshot at " + file);
    }
    try {
      ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file));
      byte[] magic = new byte[MAGIC.length];
      in.get(magic);
      if (!Arrays.equals(magic, MAGIC) || in.getInt() != FORMAT) {
        throw new Unusable("the snapshot is of another format");
      }
      if (!FINGERPRINT.equals(RecordLayout.readString(in))) {
        throw new Unusable("the snapshot was written by a build with other record classes");
      }
      String commit = RecordLayout.readString(in);
      int count = in.getInt();
      Sheet[] sheets = Sheet.values();
      List<RecordChange> records = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        Sheet sheet = sheets[in.get()];
        String key = RecordLayout.readString(in);
        records.add(RecordChange.put(sheet, key, RecordLayout.read(in, sheet)));
      }
      if (in.hasRemaining() || commit == null) {
        throw new Unusable("the snapshot has bytes after its last record");
      }
      return new Contents(commit, records);
    } catch (IOException | RuntimeException e) {
      throw new Unusable("the snapshot cannot be read: " + e);
    }
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > 1024) { // the header's strings are short
      return null;
    }
    return new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }
}
