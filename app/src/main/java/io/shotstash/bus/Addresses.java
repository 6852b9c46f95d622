package io.shotstash.bus;

/** Event-bus addresses: one per service. Messages are JSON objects; the header {@code action} names the operation. */
public final class Addresses {
  private Addresses() {}

  /** The git writer: every change to public records. Exactly one consumer in the cluster. */
  public static final String PUBLICDATA_WRITE = "publicdata.write";

  /** Published after each commit: {@code {parent, commit, changes}}; every node's replica applies it. */
  public static final String PUBLICDATA_CHANGED = "publicdata.changed";

  /**
   * Published when sessions of a person end (a logout): {@code {personId}}. Open GraphQL WebSockets
   * of that person check their session again and close when it has ended.
   */
  public static final String PEOPLE_SESSIONS_ENDED = "people.sessions.ended";

  /** The job queue: every pipeline rule over PostgreSQL (workers over HTTP and in-process, people). */
  public static final String PIPELINE_QUEUE = "pipeline.queue";

  /** Published after each visible job change: {@code {id, seq, status, progress}}. */
  public static final String PIPELINE_JOB_UPDATED = "pipeline.job.updated";

  /** Published when a worker's token or kinds change or it is revoked: {@code {workerId}}. */
  public static final String PIPELINE_WORKERS_CHANGED = "pipeline.workers.changed";

  /** Triggers one sweep now (tests and operators); replies with what it did. */
  public static final String PIPELINE_SWEEP = "pipeline.sweep";

  /** Samples the jobs dashboard's previous minute now, if no node has (tests, operators); replies {@code {written}}. */
  public static final String PIPELINE_MINUTES_SAMPLE = "pipeline.minutes.sample";

  /** The media library: folders, files, versions, trash. */
  public static final String MEDIA_LIBRARY = "media.library";

  /** Removes expired resumable uploads now (tests and operators); replies {@code {removed}}. */
  public static final String MEDIA_UPLOADS_SWEEP = "media.uploads.sweep";

  /** Moderation reads: roster, member detail, spam-purge log, agents. */
  public static final String MODERATION = "moderation";

  /** Runs one scheduled-purge sweep now (tests and operators); replies {@code {purged: [slugs]}}. */
  public static final String MODERATION_PURGE_SWEEP = "moderation.purge-sweep";

  /** The message header that names the operation. */
  public static final String ACTION = "action";
}
