package io.shotstash.publicdata.git;

import java.util.Arrays;
import java.util.Objects;

/**
 * One file-level change for {@link GitTreeWriter#commit}: write {@code content} at {@code path},
 * or delete the file at {@code path} when {@code content} is {@code null}.
 *
 * <p>Paths are relative and slash-separated ({@code people/jane.toml}). They are validated on
 * construction so that nothing the writer produces can be rejected by {@code git fsck}: no
 * leading or trailing slash, no empty segment, no {@code .}, {@code ..} or {@code .git} segment,
 * no NUL byte.
 *
 * <p>The content array is not copied; callers must not modify it after handing it over.
 *
 * @param path    the file's path inside the repository
 * @param content the new bytes of the file, or {@code null} to delete it
 */
public record PathChange(String path, byte[] content) {

  public PathChange {
    validatePath(path);
  }

  /** A change that creates or replaces the file at {@code path}. */
  public static PathChange put(String path, byte[] content) {
    return new PathChange(path, Objects.requireNonNull(content, "content"));
  }

  /** A change that removes the file at {@code path}; a no-op if there is no such file. */
  public static PathChange delete(String path) {
    return new PathChange(path, null);
  }

  /** Whether this change removes the file. */
  public boolean isDelete() {
    return content == null;
  }

  /** The path split into its folder names followed by the file name. */
  String[] segments() {
    return path.split("/", -1);
  }

  /**
   * Rejects paths git cannot store, or that {@code git fsck --strict} would flag.
   *
   * @throws IllegalArgumentException when the path is not acceptable
   */
  static void validatePath(String path) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("path must not be empty");
    }
    if (path.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("path must not contain NUL: " + path);
    }
    if (path.startsWith("/")) {
      throw new IllegalArgumentException("path must be relative: " + path);
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")
          || segment.equalsIgnoreCase(".git")) {
        throw new IllegalArgumentException("invalid path segment '" + segment + "' in: " + path);
      }
    }
  }

  // Records compare arrays by identity; compare the bytes so equal changes are equal.
  @Override
  public boolean equals(Object other) {
    return other instanceof PathChange that
        && path.equals(that.path)
        && Arrays.equals(content, that.content);
  }

  @Override
  public int hashCode() {
    return 31 * path.hashCode() + Arrays.hashCode(content);
  }

  @Override
  public String toString() {
    return isDelete()
        ? "PathChange[delete " + path + "]"
        : "PathChange[put " + path + ", " + content.length + " bytes]";
  }
}
