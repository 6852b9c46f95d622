package io.shotstash.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;

/**
 * Serialises what nodes sharing one data folder create on their first start (the data repository
 * and its sheet configuration, the generated JWT key): an exclusive lock on
 * {@code <data dir>/.start.lock} while one node does it, so two nodes started at the same moment
 * on an empty shared volume do not both create them. Blocking; call it off the event loop.
 */
public final class FirstStartLock {
  static final String FILE = ".start.lock";

  private FirstStartLock() {}

  public static <T> T around(Path dataDir, Callable<T> work) throws Exception {
    synchronized (FirstStartLock.class) { // a file lock is per process: threads of one process queue here
      return locked(dataDir, work);
    }
  }

  private static <T> T locked(Path dataDir, Callable<T> work) throws Exception {
    try (FileChannel channel = FileChannel.open(dataDir.resolve(FILE), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      FileLock lock = lock(channel);
      try {
        return work.call();
      } finally {
        lock.release();
      }
    }
  }

  private static FileLock lock(FileChannel channel) {
    try {
      return channel.lock();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + FILE + " in the data folder", e);
    }
  }
}
