package io.shotstash.pipeline;

/**
 * Where a queued job stands in the claim order, before its age (migration V13): the claim takes
 * the lowest value first, then the oldest job. A person waiting for one file goes ahead of a
 * folder's backlog, however long that backlog is.
 */
public enum JobPriority {
  /** A person asked for this one file: {@code enqueueJob}, {@code retryJob} (the column's default). */
  PERSON(0),
  /** A folder's backlog: {@code enqueueFolder}. */
  FOLDER(1);

  private final short value;

  JobPriority(int value) {
    this.value = (short) value;
  }

  /** The value stored in {@code pipeline_jobs.priority}. */
  public short value() {
    return value;
  }
}
