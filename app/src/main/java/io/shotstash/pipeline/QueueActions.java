package io.shotstash.pipeline;

/** The {@code action} header values {@code pipeline.queue} answers. Each message and reply is JSON. */
public final class QueueActions {
  private QueueActions() {}

  /** {manifest} → {workerId, token, contract, heartbeatSeconds, leaseSeconds}. */
  public static final String REGISTER = "register";
  /** {tokenHash (hex SHA-256)} → {workerId, name, kinds}; 401 UNAUTHENTICATED. */
  public static final String AUTHENTICATE = "authenticate";
  /** {workerId, manifest, activeJobIds, previousKinds} → {contract, lostJobIds}. */
  public static final String HEARTBEAT = "heartbeat";
  /**
   * {workerId, kinds, withStorageKey?} → {job} or {} when nothing is claimable. With
   * {@code withStorageKey: true} (in-process workers only; the HTTP route never asks) the reply also
   * carries the input's {@code storageKey}, so the claim's holder reads it without an {@link #INPUT}.
   */
  public static final String NEXT = "next";
  /** {workerId, jobId, claimToken} → {storageKey, name, mimeType, size}. */
  public static final String INPUT = "input";
  /** {workerId, jobId, claimToken, progress} → {status, progress, seq}. */
  public static final String PROGRESS = "progress";
  /** {workerId, jobId, claimToken} → {} when the claim holds; moves the lease as an upload starts. */
  public static final String BEGIN_OUTPUT = "output.begin";
  /** {workerId, jobId, claimToken, versionId, storageKey, mimeType, ext, size} → {versionId, size, mimeType}. */
  public static final String RECORD_OUTPUT = "output";
  /** {workerId, jobId, claimToken} → {status: done, versionId}. */
  public static final String COMPLETE = "complete";
  /** {workerId, jobId, claimToken} → {status: queued, attempts}. */
  public static final String RELEASE = "release";
  /** {workerId, jobId, claimToken, error, retryable} → {status, attempts, maxAttempts}. */
  public static final String FAIL = "fail";
  /** {fileId, kind, personId} → job view. */
  public static final String ENQUEUE = "enqueue";
  /**
   * {folderId, kind, includeSubfolders, personId} → {queued, skipped, notApplicable}: the kind queued
   * for every live file of the folder (and of its live sub-folders) it applies to, at
   * {@link JobPriority#FOLDER}, in bounded batches ({@link FolderEnqueue}).
   */
  public static final String ENQUEUE_FOLDER = "enqueue-folder";
  /** {jobId, error?} → job view. */
  public static final String CANCEL = "cancel";
  /** {jobId, personId} → the view of the job that runs the failed one's kind on its file again. */
  public static final String RETRY = "retry";
  /** {jobId} → job view. */
  public static final String JOB = "job";
  /** {fileId} → {jobs}. */
  public static final String JOBS_OF_FILE = "jobs-of-file";
  /** {fileId?} → {kinds}. */
  public static final String KINDS = "kinds";
  /** {} → {workers}. */
  public static final String WORKERS = "workers";
  /** {workerId} → {revoked}. */
  public static final String REVOKE = "revoke";
  /** {} → {liveWorkers, queuedJobs, jobsByStatus}. */
  public static final String STATUS = "status";
  /** {} → {counts: [{status, count}]}, every status (the jobs dashboard). */
  public static final String JOB_COUNTS = "job-counts";
  /** {} → {minutes}: the last hour, per minute, oldest first (the jobs dashboard). */
  public static final String LAST_HOUR = "last-hour";
  /** {status?, kind?, worker?, fileName?, page?, perPage?} → {jobs, page, perPage, total} (the jobs table). */
  public static final String JOB_LIST = "job-list";
}
