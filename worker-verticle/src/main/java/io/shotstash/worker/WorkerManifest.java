package io.shotstash.worker;

import java.util.List;

/** What a worker tells the app about itself: its name (one per process), version, kinds and contract major. */
public record WorkerManifest(String name, String version, List<String> kinds, int contract) {
  public WorkerManifest {
    kinds = List.copyOf(kinds);
  }

  /** The reference worker's manifest under {@code name}. */
  public static WorkerManifest proxy720p(String name) {
    return new WorkerManifest(name, WorkerLoop.VERSION, List.of(WorkerLoop.KIND), 1);
  }
}
