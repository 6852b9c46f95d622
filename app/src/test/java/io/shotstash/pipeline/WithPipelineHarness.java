package io.shotstash.pipeline;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One {@link PipelineHarness} for a whole test class, started before its first test and closed
 * after its last. Test classes run one at a time (no parallel execution is configured), so the
 * static field is never shared by two live classes.
 */
abstract class WithPipelineHarness {
  static PipelineHarness h;

  @BeforeAll
  static void startHarness() {
    h = PipelineHarness.start();
  }

  @AfterAll
  static void closeHarness() {
    h.close();
  }
}
