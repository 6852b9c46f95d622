package io.shotstash.testing;

import io.shotstash.app.DiskFull;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real, small file system for tests of a full disk: a tmpfs of a few MiB mounted on a fresh
 * folder, to serve as the app's {@code SHOTSTASH_DATA_DIR}. Writes past its size fail with ENOSPC
 * exactly as on a full disk. Mounting needs root (or CAP_SYS_ADMIN); without it {@link #mount}
 * fails at once with one line that says so, rather than skipping the test. {@link #close()}
 * unmounts it.
 */
public final class SmallDisk implements AutoCloseable {
  /** CAP_SYS_ADMIN's bit in /proc/self/status CapEff (linux/capability.h). */
  private static final int CAP_SYS_ADMIN = 21;

  private final Path dir;
  private final Path filler;

  private SmallDisk(Path dir) {
    this.dir = dir;
    this.filler = dir.resolve("filler.bin");
  }

  /** Mounts a tmpfs of {@code megabytes} MiB on a new folder under java.io.tmpdir. */
  public static SmallDisk mount(int megabytes) {
    requireMountRight();
    Path dir;
    try {
      dir = Files.createTempDirectory("small-disk-");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,mode=0700", "tmpfs", dir.toString()));
    return new SmallDisk(dir);
  }

  private static void requireMountRight() {
    boolean allowed;
    try {
      allowed = Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII).stream()
          .filter(line -> line.startsWith("CapEff:"))
          .map(line -> Long.parseUnsignedLong(line.substring("CapEff:".length()).strip(), 16))
          .anyMatch(caps -> (caps & (1L << CAP_SYS_ADMIN)) != 0);
    } catch (IOException e) {
      allowed = false; // no /proc: not Linux, no tmpfs either
    }
    if (!allowed) {
      throw new IllegalStateException("This test mounts a small tmpfs as the data folder and needs root "
          + "(or CAP_SYS_ADMIN) on Linux to do so: run the tests as root");
    }
  }

  private static void run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
      }
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The whole app with its data folder on this disk, signed in as its first administrator. If the
   * app cannot start, the disk is unmounted again before the failure goes on.
   */
  public TestApp startApp(Map<String, String> settings) {
    Map<String, String> env = new HashMap<>(settings);
    env.put("SHOTSTASH_DATA_DIR", path().toString());
    try {
      return TestApp.start(env);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Closes the app (when it started), then gives the space back and unmounts the disk. */
  public void closeWith(TestApp app) {
    try {
      free();
      if (app != null) {
        app.close();
      }
    } finally {
      close();
    }
  }

  /** What {@code media/<folder>} holds on this disk. */
  public List<Path> media(String folder) throws IOException {
    try (Stream<Path> files = Files.list(path().resolve("media").resolve(folder))) {
      return files.toList();
    }
  }

  /** The mounted folder: pass it as SHOTSTASH_DATA_DIR. */
  public Path path() {
    return dir;
  }

  /** What is still free on the tmpfs, in bytes. */
  public long usableBytes() {
    try {
      return Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Fills the tmpfs to the last byte with a filler file: writes until the file system answers ENOSPC
   * (anything else fails the test). Returns the filler's size.
   */
  public long fill() {
    ByteBuffer zeros = ByteBuffer.allocateDirect(64 * 1024);
    try (FileChannel out = FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      while (true) {
        zeros.clear();
        try {
          while (zeros.hasRemaining()) {
            out.write(zeros);
          }
        } catch (IOException e) {
          if (DiskFull.is(e)) {
            return out.size();
          }
          throw e;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not fill " + dir, e);
    }
  }

  /** Deletes the filler: the space is back. */
  public void free() {
    try {
      Files.deleteIfExists(filler);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Unmounts the tmpfs (everything on it is gone) and removes the folder. */
  @Override
  public void close() {
    try {
      run(List.of("umount", dir.toString()));
    } catch (IllegalStateException busy) {
      // something still holds a file open (a test that failed half way): detach it now, the kernel
      // frees it once the last holder lets go
      run(List.of("umount", "-l", dir.toString()));
    }
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // an empty folder under target/ is harmless
    }
  }
}
