package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Job statuses and the derived state (PIPELINE.md → Job states). */
class JobStatusTest {

  @Test
  void theSixStatusesOnTheWire() {
    assertThat(Arrays.stream(JobStatus.values()).map(JobStatus::wire))
        .containsExactly("queued", "claimed", "running", "done", "failed", "cancelled");
  }

  @Test
  void doneFailedAndCancelledAreFinal() {
    assertThat(Arrays.stream(JobStatus.values()).filter(JobStatus::isFinal))
        .containsExactlyInAnyOrder(JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED);
    assertThat(JobStatus.QUEUED.isFinal()).isFalse();
    assertThat(JobStatus.CLAIMED.isFinal()).isFalse();
    assertThat(JobStatus.RUNNING.isFinal()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(JobStatus.class)
  void parseReadsTheWireForm(JobStatus status) {
    assertThat(JobStatus.parse(status.wire())).isEqualTo(status);
    assertThat(JobStatus.parse(status.name())).isEqualTo(status);
  }

  @Test
  void parseRefusesUnknownStatuses() {
    assertThat(catchThrowable(() -> JobStatus.parse("waiting_for_worker")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(catchThrowable(() -> JobStatus.parse("paused"))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aQueuedJobWithoutALiveWorkerIsWaitingForWorker() {
    assertThat(JobStatus.QUEUED.state(false)).isEqualTo("waiting_for_worker");
    assertThat(JobStatus.QUEUED.state(true)).isEqualTo("queued");
  }

  @ParameterizedTest
  @EnumSource(value = JobStatus.class, names = "QUEUED", mode = EnumSource.Mode.EXCLUDE)
  void everyOtherStatusIsItsOwnStateWhateverTheLiveness(JobStatus status) {
    assertThat(status.state(false)).isEqualTo(status.wire());
    assertThat(status.state(true)).isEqualTo(status.wire());
  }
}
