package io.shotstash.app;

import java.nio.file.FileSystemException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a failure means the file system is out of space (ENOSPC) or over a quota (EDQUOT): the one
 * rule the upload routes (507) and the git writer (503) share to tell a full disk from any other
 * fault.
 *
 * <p>Java has no exception type for it. The JDK reports both errnos through their C library text:
 * {@code IOException("No space left on device")} from a stream or channel write,
 * {@link FileSystemException} with that text as its reason from {@code java.nio.file.Files}, and
 * libraries wrap either (Vert.x's {@code FileSystemException}, JGit's
 * {@code ObjectWritingException}, {@code UncheckedIOException}). So the rule walks the causes and
 * the suppressed exceptions and looks for that text. The JDK reads it with {@code strerror} in the
 * process's locale; the JVM does not translate its own messages, and servers run with C or English
 * messages, which is what the texts below match.
 */
public final class DiskFull {
  /** What ENOSPC and EDQUOT read as in glibc and musl (lower case). */
  private static final String[] TEXTS = {"no space left on device", "disk quota exceeded", "quota exceeded"};
  /** Wrappers nest a few levels deep; a chain longer than this is not worth walking. */
  private static final int MAX_DEPTH = 32;

  private DiskFull() {}

  /** Whether {@code failure}, or anything it wraps or suppressed, says the disk is full. */
  public static boolean is(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Throwable> todo = new ArrayDeque<>();
    if (failure != null) {
      todo.add(failure);
    }
    while (!todo.isEmpty() && seen.size() < MAX_DEPTH) {
      Throwable t = todo.poll();
      if (!seen.add(t)) {
        continue; // a cycle in the causes
      }
      if (saysFull(t)) {
        return true;
      }
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
      Collections.addAll(todo, t.getSuppressed());
    }
    return false;
  }

  private static boolean saysFull(Throwable t) {
    // FileSystemException's message adds the file names, which could contain anything: read its reason
    String text = t instanceof FileSystemException fse ? fse.getReason() : t.getMessage();
    if (text == null) {
      return false;
    }
    String lower = text.toLowerCase(Locale.ROOT);
    for (String full : TEXTS) {
      if (lower.contains(full)) {
        return true;
      }
    }
    return false;
  }
}
