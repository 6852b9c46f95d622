package io.shotstash.publicdata;

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
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * How a {@link StateSnapshot} writes and reads one record: its components in declaration order,
 * each by its type. A string is its UTF-8 length (-1 for null) and bytes; a list its size (-1) and
 * elements; an {@link Instant} a presence byte, epoch seconds and nanos; other boxed values a
 * presence byte and the value; primitives their value; a nested record a presence byte and its
 * components. The record classes use no other types (a new one fails at start-up, when
 * {@link #fingerprint} makes the shape of every sheet's record class). Big-endian, as
 * {@link DataOutputStream} writes.
 */
final class RecordLayout {
  private static final Map<Class<?>, Shape> SHAPES = new HashMap<>();

  private RecordLayout() {}

  /** Writes {@code record}, a record of {@code sheet}, as its components in declaration order. */
  static void write(DataOutputStream out, Sheet sheet, Object record) throws IOException {
    shape(sheet.recordType()).write(out, record);
  }

  /** Reads a record of {@code sheet} that {@link #write} wrote. */
  static Object read(ByteBuffer in, Sheet sheet) {
    return shape(sheet.recordType()).read(in);
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static String readString(ByteBuffer in) {
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

  /** How {@link #codec} writes one component. */
  @FunctionalInterface
  private interface Writer {
    void write(DataOutputStream out, Object value) throws IOException;
  }

  private static Codec codec(Writer writer, Function<ByteBuffer, Object> reader) {
    return new Codec() {
      public void write(DataOutputStream out, Object v) throws IOException {
        writer.write(out, v);
      }

      public Object read(ByteBuffer in) {
        return reader.apply(in);
      }
    };
  }

  private static final Codec STRING = codec((out, v) -> writeString(out, (String) v), RecordLayout::readString);

  /** A boxed Boolean in one byte: 0 for null, 1 for false, 2 for true. */
  private static final Codec BOOLEAN = codec((out, v) -> out.writeByte(v == null ? 0 : (Boolean) v ? 2 : 1), in -> {
    byte b = in.get();
    return b == 0 ? null : b == 2;
  });

  /** A primitive component (never null). */
  private static final Codec PRIMITIVE_BOOLEAN = codec((out, v) -> out.writeBoolean((Boolean) v), in -> in.get() != 0);
  private static final Codec PRIMITIVE_INT = codec((out, v) -> out.writeInt((Integer) v), ByteBuffer::getInt);
  private static final Codec PRIMITIVE_LONG = codec((out, v) -> out.writeLong((Long) v), ByteBuffer::getLong);
  private static final Codec PRIMITIVE_DOUBLE = codec((out, v) -> out.writeDouble((Double) v), ByteBuffer::getDouble);

  /** Seconds and nanoseconds (never null). */
  private static final Codec PRESENT_INSTANT = codec((out, v) -> {
    out.writeLong(((Instant) v).getEpochSecond());
    out.writeInt(((Instant) v).getNano());
  }, in -> Instant.ofEpochSecond(in.getLong(), in.getInt()));

  /** A component that may be null: a byte that says whether it is there, then {@code value}'s bytes when it is. */
  private static Codec nullable(Codec value) {
    return codec((out, v) -> {
      out.writeBoolean(v != null);
      if (v != null) {
        value.write(out, v);
      }
    }, in -> in.get() == 0 ? null : value.read(in));
  }

  private static final Codec INSTANT = nullable(PRESENT_INSTANT);
  private static final Codec LONG = nullable(PRIMITIVE_LONG);
  private static final Codec INTEGER = nullable(PRIMITIVE_INT);
  private static final Codec DOUBLE = nullable(PRIMITIVE_DOUBLE);

  /** The codec of each component type that is neither a list nor a record. */
  private static final Map<Type, Codec> PLAIN = Map.of(String.class, STRING, Instant.class, INSTANT, Long.class, LONG,
      Integer.class, INTEGER, Double.class, DOUBLE, Boolean.class, BOOLEAN, boolean.class, PRIMITIVE_BOOLEAN,
      int.class, PRIMITIVE_INT, long.class, PRIMITIVE_LONG);

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
    Codec plain = PLAIN.get(type);
    if (plain != null) {
      return plain;
    } else if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
      return listOf(codecFor(p.getActualTypeArguments()[0]));
    } else if (type instanceof Class<?> c && c.isRecord()) {
      return nullable(shape(c));
    }
    throw new IllegalStateException("the state snapshot has no layout for " + type.getTypeName()
        + "; add one to RecordLayout (and bump StateSnapshot.FORMAT)");
  }

  /** A record class: its accessors, canonical constructor and one codec per component. */
  private record Shape(Method[] accessors, Constructor<?> constructor, Codec[] codecs) implements Codec {
    @Override
    public void write(DataOutputStream out, Object record) throws IOException {
      for (int i = 0; i < accessors.length; i++) {
        try {
          codecs[i].write(out, accessors[i].invoke(record));
        } catch (IllegalAccessException | InvocationTargetException e) {
          throw new IllegalStateException(e);
        }
      }
    }

    @Override
    public Object read(ByteBuffer in) {
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
   * Makes the shape of every sheet's record class, and the SHA-256 over the format and every
   * record class's components (names and types, nested records too).
   */
  static String fingerprint(int format) {
    StringBuilder text = new StringBuilder("format ").append(format).append('\n');
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
