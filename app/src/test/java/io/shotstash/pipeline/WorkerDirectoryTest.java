package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.pipeline.WorkerDirectory.WorkerRef;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerDirectoryTest {
  static final WorkerRef ADA = new WorkerRef("w-ada", "ada", List.of("shotstash/proxy-720p"));
  static final WorkerRef BOB = new WorkerRef("w-bob", "bob", List.of("shotstash/proxy-720p"));

  @Test
  void aWorkerReadIsCachedByTokenHashUntilForgotten() {
    WorkerDirectory d = new WorkerDirectory();
    d.put("hash-ada", ADA, d.generation());
    d.put("hash-bob", BOB, d.generation());

    assertThat(d.get("hash-ada")).isEqualTo(ADA);
    d.forget("w-ada");
    assertThat(d.get("hash-ada")).isNull();
    assertThat(d.get("hash-bob")).isEqualTo(BOB);
  }

  @Test
  void aReadThatBeganBeforeTheWorkerChangedIsNotCached() {
    WorkerDirectory d = new WorkerDirectory();
    long readAt = d.generation(); // the old token's lookup starts
    d.forget("w-ada"); // ada registers again: a new token; the old one must stop working
    d.put("hash-ada-old", ADA, readAt); // the lookup answers with what it read before

    assertThat(d.get("hash-ada-old")).isNull();
  }

  @Test
  void anotherWorkersChangeDoesNotStopAReadBeingCached() {
    WorkerDirectory d = new WorkerDirectory();
    long readAt = d.generation();
    d.forget("w-bob");
    d.put("hash-ada", ADA, readAt);

    assertThat(d.get("hash-ada")).isEqualTo(ADA);
  }

  @Test
  void aReadAfterTheChangeIsCached() {
    WorkerDirectory d = new WorkerDirectory();
    d.forget("w-ada");
    d.put("hash-ada-new", ADA, d.generation());

    assertThat(d.get("hash-ada-new")).isEqualTo(ADA);
  }

  @Test
  void itsOwnChangeEventsAreIgnoredAndOtherNodesOnesForget() {
    WorkerDirectory here = new WorkerDirectory();
    WorkerDirectory there = new WorkerDirectory();
    here.put("hash-ada", ADA, here.generation());

    here.changed(here.changeEvent("w-ada")); // its own copy, late: ada's next call had already been cached again
    assertThat(here.get("hash-ada")).isEqualTo(ADA);

    here.changed(there.changeEvent("w-ada"));
    assertThat(here.get("hash-ada")).isNull();
  }
}
