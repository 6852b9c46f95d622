package io.shotstash.worker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Scratch folders: made per job under the worker's own folder, always deleted. Blocking: call off the event loop. */
final class Scratch {
  private Scratch() {}

  /** A folder name from a worker name: letters, digits, '.', '_' and '-' only, never "." or "..". */
  static String folderName(String workerName) {
    String safe = workerName.replaceAll("[^A-Za-z0-9._-]", "_");
    return "worker-" + (safe.length() > 100 ? safe.substring(0, 100) : safe);
  }

  /** Deletes a folder and everything in it; a missing folder is fine. */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dir)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : paths) {
      try {
        Files.deleteIfExists(p);
      } catch (NoSuchFileException e) {
        // gone already
      }
    }
  }
}
