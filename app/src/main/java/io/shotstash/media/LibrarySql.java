package io.shotstash.media;

/** Every statement of the media library, named, in one place. */
final class LibrarySql {
  private LibrarySql() {}

  static final String INSERT_FOLDER =
      "INSERT INTO folders (id, name, parent_id, created_by) VALUES ($1, $2, $3, $4) "
          + "RETURNING id, name, parent_id, created_at, trashed_at";

  static final String FOLDER_EXISTS = "SELECT 1 FROM folders WHERE id = $1 AND trashed_at IS NULL";

  static final String FOLDERS =
      "SELECT id, name, parent_id, created_at, trashed_at FROM folders WHERE trashed_at IS NULL ORDER BY created_at";

  static final String FOLDER =
      "SELECT id, name, parent_id, created_at, trashed_at FROM folders WHERE id = $1";

  static final String INSERT_FILE =
      "INSERT INTO media_files (id, folder_id, name, mime_type, size, storage_key, created_by) "
          + "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING " + FileCols.LIST;

  static final String FILE = "SELECT " + FileCols.LIST + " FROM media_files WHERE id = $1";

  static final String FILES_OF_FOLDER =
      "SELECT " + FileCols.LIST + " FROM media_files WHERE folder_id = $1 AND trashed_at IS NULL ORDER BY created_at";

  /**
   * Trash a file: take the file row's lock first (complete takes the same one, so a completion and
   * a trash never interleave), mark it, and cancel its unfinished jobs in the same transaction.
   */
  static final String LOCK_FILE = "SELECT id, trashed_at FROM media_files WHERE id = $1 FOR UPDATE";

  static final String TRASH_FILE = "UPDATE media_files SET trashed_at = now() WHERE id = $1 AND trashed_at IS NULL";

  static final String RESTORE_FILE = "UPDATE media_files SET trashed_at = NULL WHERE id = $1";

  /**
   * The holder keeps its claim so it hears JOB_TERMINAL, and FILE_GONE on complete. The jobs are
   * locked by id, the order the job queue's batches lock them in (migration V8).
   */
  static final String CANCEL_JOBS_OF_FILE =
      "WITH doomed AS (SELECT id, output_storage_key AS previous FROM pipeline_jobs "
          + "  WHERE file_id = $1 AND status IN ('queued','claimed','running') ORDER BY id FOR UPDATE) "
          + "UPDATE pipeline_jobs j SET status = 'cancelled', error = 'file trashed', output_version_id = NULL, "
          + "output_storage_key = NULL, output_mime_type = NULL, output_ext = NULL, output_size = NULL, "
          + "seq = j.seq + 1, updated_at = now(), finished_at = now() FROM doomed WHERE j.id = doomed.id "
          + "RETURNING j.id, j.seq, doomed.previous";

  static final String FILES_OF_FOLDER_TREE =
      "WITH RECURSIVE tree AS (SELECT id FROM folders WHERE id = $1 UNION ALL "
          + "  SELECT f.id FROM folders f JOIN tree t ON f.parent_id = t.id) "
          + "SELECT m.id FROM media_files m WHERE m.folder_id IN (SELECT id FROM tree) AND m.trashed_at IS NULL";

  static final String TRASH_FOLDER_TREE =
      "WITH RECURSIVE tree AS (SELECT id FROM folders WHERE id = $1 UNION ALL "
          + "  SELECT f.id FROM folders f JOIN tree t ON f.parent_id = t.id) "
          + "UPDATE folders SET trashed_at = now() WHERE id IN (SELECT id FROM tree) AND trashed_at IS NULL";

  static final String VERSIONS_OF_FILE =
      "SELECT id, file_id, job_id, attempt, kind, mime_type, ext, size, created_at FROM processed_versions "
          + "WHERE file_id = $1 ORDER BY created_at";

  static final String VERSION =
      "SELECT v.id, v.file_id, v.kind, v.mime_type, v.ext, v.size, v.storage_key, f.name, f.trashed_at "
          + "FROM processed_versions v JOIN media_files f ON f.id = v.file_id WHERE v.id = $1";

  /** The columns of a file row. */
  static final class FileCols {
    static final String LIST = "id, folder_id, name, mime_type, size, storage_key, status, created_at, trashed_at";

    private FileCols() {}
  }
}
