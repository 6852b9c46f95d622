package io.shotstash.publicdata;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
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
 * (ordinal), its key and its components in declaration order. A string is its UTF-8 length (-1 for
 * null) and bytes; a list its size (-1) and elements; an {@link Instant} a presence byte, epoch
 * seconds and nanos; other boxed values a presence byte and the value; primitives their value; a
 * nested record a presence byte and its components. The record classes use no other types (a new one fails at start-up, in
 * {@link #FINGERPRINT}).
 */
public final class StateSnapshot {
  /** Bumped whenever the layout above changes. */
  static final int FORMAT = 1;

  private static final byte[] MAGIC = "shotstash public-state snapshot\n".getBytes(StandardCharsets.US_ASCII);
  private static final Map<Class<?>, Shape> SHAPES = new HashMap<>();

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
        writeString(out, FINGERPRINT);
        writeString(out, state.commit());
        out.writeInt(state.records());
        for (Sheet sheet : Sheet.values()) {
          Shape shape = SHAPES.get(sheet.recordType());
          for (Map.Entry<String, Object> e : state.entries(sheet)) {
            out.writeByte(sheet.ordinal());
            writeString(out, e.getKey());
            shape.write(out, e.getValue());
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
      if (!FINGERPRINT.equals(readString(in))) {
        throw new Unusable("the snapshot was written by a build with other record classes");
      }
      String commit = readString(in);
      int count = in.getInt();
      Sheet[] sheets = Sheet.values();
      List<RecordChange> records = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        Sheet sheet = sheets[in.get()];
        String key = readString(in);
        records.add(RecordChange.put(sheet, key, SHAPES.get(sheet.recordType()).read(in)));
      }
      if (in.hasRemaining() || commit == null) {
        throw new Unusable("the snapshot has bytes after its last record");
      }
      return new Contents(commit, records);
    } catch (IOException | RuntimeException e) {
      throw new Unusable("the snapshot cannot be read: " + e);
    }
  }

  // ---- values

  private static void writeString(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > 1024) { // the header's strings are short
      return null;
    }
    return new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private static String readString(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0) {
      return null;
    }
    if (length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    String s = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
    in.position(in.position() + length);
    return s;
  }

  /** How one component type is written and read. */
  private interface Codec {
    void write(DataOutputStream out, Object value) throws IOException;

    Object read(ByteBuffer in);
  }

  private static final Codec STRING = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      writeString(out, (String) v);
    }

    public Object read(ByteBuffer in) {
      return readString(in);
    }
  };

  private static final Codec INSTANT = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeBoolean(v != null);
      if (v != null) {
        out.writeLong(((Instant) v).getEpochSecond());
        out.writeInt(((Instant) v).getNano());
      }
    }

    public Object read(ByteBuffer in) {
      return in.get() == 0 ? null : Instant.ofEpochSecond(in.getLong(), in.getInt());
    }
  };

  private static final Codec LONG = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeBoolean(v != null);
      if (v != null) {
        out.writeLong((Long) v);
      }
    }

    public Object read(ByteBuffer in) {
      return in.get() == 0 ? null : in.getLong();
    }
  };

  private static final Codec INTEGER = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeBoolean(v != null);
      if (v != null) {
        out.writeInt((Integer) v);
      }
    }

    public Object read(ByteBuffer in) {
      return in.get() == 0 ? null : in.getInt();
    }
  };

  private static final Codec DOUBLE = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeBoolean(v != null);
      if (v != null) {
        out.writeDouble((Double) v);
      }
    }

    public Object read(ByteBuffer in) {
      return in.get() == 0 ? null : in.getDouble();
    }
  };

  private static final Codec BOOLEAN = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeByte(v == null ? 0 : (Boolean) v ? 2 : 1);
    }

    public Object read(ByteBuffer in) {
      byte b = in.get();
      return b == 0 ? null : b == 2;
    }
  };

  /** A primitive component (never null). */
  private static final Codec PRIMITIVE_BOOLEAN = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeBoolean((Boolean) v);
    }

    public Object read(ByteBuffer in) {
      return in.get() != 0;
    }
  };

  private static final Codec PRIMITIVE_INT = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeInt((Integer) v);
    }

    public Object read(ByteBuffer in) {
      return in.getInt();
    }
  };

  private static final Codec PRIMITIVE_LONG = new Codec() {
    public void write(DataOutputStream out, Object v) throws IOException {
      out.writeLong((Long) v);
    }

    public Object read(ByteBuffer in) {
      return in.getLong();
    }
  };

  private static Codec listOf(Codec element) {
    return new Codec() {
      public void write(DataOutputStream out, Object v) throws IOException {
        List<?> list = (List<?>) v;
        out.writeInt(list == null ? -1 : list.size());
        if (list != null) {
          for (Object e : list) {
            element.write(out, e);
          }
        }
      }

      public Object read(ByteBuffer in) {
        int size = in.getInt();
        if (size < 0) {
          return null;
        }
        List<Object> list = new ArrayList<>(Math.min(size, in.remaining()));
        for (int i = 0; i < size; i++) {
          list.add(element.read(in));
        }
        return list; // as Jackson gives it when it reads the TOML file
      }
    };
  }

  private static Codec codecFor(Type type) {
    if (type == String.class) {
      return STRING;
    } else if (type == Instant.class) {
      return INSTANT;
    } else if (type == Long.class) {
      return LONG;
    } else if (type == Integer.class) {
      return INTEGER;
    } else if (type == Double.class) {
      return DOUBLE;
    } else if (type == Boolean.class) {
      return BOOLEAN;
    } else if (type == boolean.class) {
      return PRIMITIVE_BOOLEAN;
    } else if (type == int.class) {
      return PRIMITIVE_INT;
    } else if (type == long.class) {
      return PRIMITIVE_LONG;
    } else if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
      return listOf(codecFor(p.getActualTypeArguments()[0]));
    } else if (type instanceof Class<?> c && c.isRecord()) {
      Shape nested = shape(c);
      return new Codec() {
        public void write(DataOutputStream out, Object v) throws IOException {
          out.writeBoolean(v != null);
          if (v != null) {
            nested.write(out, v);
          }
        }

        public Object read(ByteBuffer in) {
          return in.get() == 0 ? null : nested.read(in);
        }
      };
    }
    throw new IllegalStateException("the state snapshot has no layout for " + type.getTypeName()
        + "; add one to StateSnapshot (and bump FORMAT)");
  }

  /** A record class: its accessors, canonical constructor and one codec per component. */
  private record Shape(Method[] accessors, Constructor<?> constructor, Codec[] codecs) {
    void write(DataOutputStream out, Object record) throws IOException {
      for (int i = 0; i < accessors.length; i++) {
        try {
          codecs[i].write(out, accessors[i].invoke(record));
        } catch (IllegalAccessException | InvocationTargetException e) {
          throw new IllegalStateException(e);
        }
      }
    }

    Object read(ByteBuffer in) {
      Object[] args = new Object[codecs.length];
      for (int i = 0; i < codecs.length; i++) {
        args[i] = codecs[i].read(in);
      }
      try {
        return constructor.newInstance(args);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot make a " + constructor.getDeclaringClass().getSimpleName(), e);
      }
    }
  }

  private static Shape shape(Class<?> type) {
    Shape known = SHAPES.get(type);
    if (known != null) {
      return known;
    }
    RecordComponent[] components = type.getRecordComponents();
    Method[] accessors = new Method[components.length];
    Class<?>[] types = new Class<?>[components.length];
    Codec[] codecs = new Codec[components.length];
    for (int i = 0; i < components.length; i++) {
      accessors[i] = components[i].getAccessor();
      types[i] = components[i].getType();
      codecs[i] = codecFor(components[i].getGenericType());
    }
    try {
      Shape shape = new Shape(accessors, type.getDeclaredConstructor(types), codecs);
      SHAPES.put(type, shape);
      return shape;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(type + " has no canonical constructor", e);
    }
  }

  /**
   * The record classes this build reads and writes: a snapshot of other classes is not used.
   * (Declared after the codecs: static fields are set in the order they stand.)
   */
  static final String FINGERPRINT = fingerprint();

  /**
   * Makes the shape of every sheet's record class, and the SHA-256 over the format and every
   * record class's components (names and types, nested records too).
   */
  private static String fingerprint() {
    StringBuilder text = new StringBuilder("format ").append(FORMAT).append('\n');
    for (Sheet s : Sheet.values()) {
      shape(s.recordType());
      text.append(s.sheetName()).append(' ');
      describe(s.recordType(), text);
      text.append('\n');
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void describe(Class<?> type, StringBuilder text) {
    text.append(type.getName()).append('(');
    for (RecordComponent c : type.getRecordComponents()) {
      text.append(c.getName()).append(':').append(c.getGenericType().getTypeName()).append(' ');
      nestedRecords(c.getGenericType(), text);
    }
    text.append(')');
  }

  private static void nestedRecords(Type type, StringBuilder text) {
    if (type instanceof Class<?> c && c.isRecord()) {
      describe(c, text);
    } else if (type instanceof ParameterizedType p) {
      for (Type arg : p.getActualTypeArguments()) {
        nestedRecords(arg, text);
      }
    }
  }
}
