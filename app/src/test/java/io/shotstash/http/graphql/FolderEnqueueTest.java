package io.shotstash.http.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.Folders;
import io.shotstash.testing.GraphqlHttp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code enqueueFolder} over real HTTP against the whole app and PostgreSQL: which files it queues
 * (live, accepted by the kind, the folder's own or its live sub-folders'), the counts it answers, that
 * a second call queues nothing, its errors, and the claim order it takes part in (a person's
 * single-file job before a folder's backlog; within one priority, oldest first). The files are
 * inserted straight into media_files (5,000 uploads would only test uploading); everything else goes
 * through GraphQL and the worker contract.
 */
class FolderEnqueueTest extends WithSignedInApp {
  static final String BOOTSTRAP = "folder-enqueue-test-bootstrap-0123456789";
  static final String PROXY = "shotstash/proxy-720p";
  static final String HEIC = "shotstash/heic-to-jpeg";
  static final String ENQUEUE_FOLDER = "mutation($f: ID!, $k: String!, $s: Boolean!) { "
      + "enqueueFolder(folderId: $f, kind: $k, includeSubfolders: $s) { queued skipped notApplicable } }";

  static String editor;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP));
    editor = app.createAndLogin(admin, "eddie", "editor", "editor password 123");
  }

  // ---- helpers ----

  static JsonObject gql(String token, String query, JsonObject variables) {
    return GraphqlHttp.post(app.client(), token, query, variables).bodyAsJsonObject();
  }

  static JsonObject enqueueFolder(String token, String folderId, String kind, boolean subfolders) {
    return gql(token, ENQUEUE_FOLDER, new JsonObject().put("f", folderId).put("k", kind).put("s", subfolders));
  }

  /** enqueueFolder's counts, {queued, skipped, notApplicable}, asserting it succeeded. */
  static List<Integer> counts(String token, String folderId, String kind, boolean subfolders) {
    JsonObject r = GraphqlHttp.data(enqueueFolder(token, folderId, kind, subfolders)).getJsonObject("enqueueFolder");
    return List.of(r.getInteger("queued"), r.getInteger("skipped"), r.getInteger("notApplicable"));
  }

  static String code(JsonObject answer) {
    JsonArray errors = answer.getJsonArray("errors");
    assertThat(errors).as(answer.encode()).isNotNull().isNotEmpty();
    return errors.getJsonObject(0).getJsonObject("extensions").getString("code");
  }

  static String folder(String name, String parentId) {
    JsonObject r = gql(admin, "mutation($n: String!, $p: ID) { createFolder(name: $n, parentId: $p) { id } }",
        new JsonObject().put("n", name).put("p", parentId));
    return GraphqlHttp.data(r).getJsonObject("createFolder").getString("id");
  }

  /** {@code n} files of this type in the folder, named {@code <prefix>-<i>} (i from 1). */
  static void files(String folderId, String prefix, int n, String mimeType) {
    app.db().execute("INSERT INTO media_files (id, folder_id, name, mime_type, size, storage_key) "
        + "SELECT gen_random_uuid(), '" + folderId + "', '" + prefix + "-' || i, '" + mimeType + "', 1000, "
        + "'test/" + prefix + "-' || i FROM generate_series(1, " + n + ") AS i");
  }

  static String fileId(String name) {
    return app.db().text("SELECT id FROM media_files WHERE name = '" + name + "'");
  }

  static long openJobs(String where) {
    return app.db().number("SELECT count(*) FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
        + "WHERE j.status IN ('queued','claimed','running') AND " + where);
  }

  // ---- tests ----

  @Test
  void queuesEveryLiveFileTheKindAcceptsOnceAndASecondCallSkipsThemAll() {
    String big = folder("Big", null);
    String inner = folder("Inner", big);
    files(big, "big", 5000, "video/mp4");
    // 100 of them are photos (the proxy does not take them), 50 other ones are in the Trash
    app.db().execute("UPDATE media_files SET mime_type = 'image/jpeg' WHERE folder_id = '" + big + "' "
        + "AND substring(name FROM 5)::int % 50 = 0");
    app.db().execute("UPDATE media_files SET trashed_at = now() WHERE folder_id = '" + big + "' "
        + "AND substring(name FROM 5)::int % 100 = 1");
    files(inner, "inner", 40, "video/mp4");
    String already = GraphqlHttp.enqueueJob(app.client(), editor, fileId("big-2"), PROXY); // a person's job

    assertThat(counts(editor, big, PROXY, false)).containsExactly(4849, 1, 100);
    String bigFiles = "f.folder_id = '" + big + "'";
    assertThat(openJobs(bigFiles + " AND j.kind = '" + PROXY + "'")).isEqualTo(4850);
    assertThat(openJobs(bigFiles + " AND f.trashed_at IS NOT NULL")).isZero();
    assertThat(openJobs(bigFiles + " AND f.mime_type = 'image/jpeg'")).isZero();
    assertThat(openJobs("f.folder_id = '" + inner + "'")).isZero();
    assertThat(openJobs(bigFiles + " AND j.priority = 1")).isEqualTo(4849);
    assertThat(app.db().number("SELECT priority FROM pipeline_jobs WHERE id = '" + already + "'")).isZero();
    assertThat(app.db().number("SELECT count(*) FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
        + "WHERE " + bigFiles + " AND j.created_by IS DISTINCT FROM (SELECT created_by FROM pipeline_jobs "
        + "WHERE id = '" + already + "')")).as("every job records who queued it").isZero();

    // again: nothing new, every accepted file skipped
    assertThat(counts(editor, big, PROXY, false)).containsExactly(0, 4850, 100);
    assertThat(openJobs(bigFiles)).isEqualTo(4850);
    // with the sub-folder: only its 40 files are new
    assertThat(counts(editor, big, PROXY, true)).containsExactly(40, 4850, 100);
    assertThat(openJobs("f.folder_id = '" + inner + "' AND j.priority = 1")).isEqualTo(40);

    // a person's single-file job queued after the whole backlog is claimed before it, then the
    // backlog in its order: the person's job of the folder's file (older), then the folder's first file
    String singles = folder("Singles", null);
    files(singles, "single", 1, "video/mp4");
    String single = GraphqlHttp.enqueueJob(app.client(), editor, fileId("single-1"), PROXY);
    ContractWorker worker = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("proxy-worker", PROXY));
    assertThat(worker.register().status()).isEqualTo(201);
    assertThat(claim(worker)).isEqualTo(already);
    assertThat(claim(worker)).isEqualTo(single);
    String firstOfBacklog = app.db().text("SELECT id FROM pipeline_jobs WHERE kind = '" + PROXY + "' "
        + "AND status = 'queued' AND priority = 1 ORDER BY created_at, id LIMIT 1"); // this test's, or an older folder's
    assertThat(openJobs("j.id = '" + firstOfBacklog + "' AND j.priority = 1")).isEqualTo(1);
    assertThat(claim(worker)).isEqualTo(firstOfBacklog);
  }

  @Test
  void includesLiveSubFoldersDownTheTreeAndLeavesTrashedOnesOut() {
    String tree = folder("Tree", null);
    String a = folder("A", tree);
    String b = folder("B", a);
    String rejects = folder("Rejects", tree);
    String underRejects = folder("Under rejects", rejects);
    files(tree, "tree", 1, "video/mp4");
    files(a, "a", 3, "video/quicktime");
    files(b, "b", 2, "video/mp4");
    files(b, "b-photo", 1, "image/heic");
    files(rejects, "rejects", 2, "video/mp4");
    files(underRejects, "under-rejects", 2, "video/mp4");
    JsonObject trashed = gql(admin, "mutation($id: ID!) { trashFolder(id: $id) }", new JsonObject().put("id", rejects));
    assertThat(GraphqlHttp.data(trashed).getBoolean("trashFolder")).isTrue();

    assertThat(counts(editor, tree, PROXY, false)).containsExactly(1, 0, 0);
    assertThat(counts(editor, tree, PROXY, true)).containsExactly(5, 1, 1);
    assertThat(openJobs("f.folder_id IN ('" + rejects + "', '" + underRejects + "')")).isZero();
    assertThat(counts(editor, a, HEIC, true)).containsExactly(1, 0, 5);
    assertThat(openJobs("j.kind = '" + HEIC + "' AND f.name = 'b-photo-1'")).isEqualTo(1);
  }

  @Test
  void refusesWhatItCannotDoWithClearCodes() {
    String other = app.createAndLogin(admin, "erin", "editor", "editor password 456");
    String user = app.createAndLogin(admin, "uma", "user", "user password 123");
    String kept = folder("Kept", null);
    String binned = folder("Binned", null);
    gql(admin, "mutation($id: ID!) { trashFolder(id: $id) }", new JsonObject().put("id", binned));

    assertThat(code(enqueueFolder(other, UUID.randomUUID().toString(), PROXY, false))).isEqualTo("FOLDER_NOT_FOUND");
    assertThat(code(enqueueFolder(other, binned, PROXY, true))).isEqualTo("FOLDER_NOT_FOUND");
    assertThat(code(enqueueFolder(other, kept, "acme/unknown", false))).isEqualTo("KIND_UNKNOWN");
    JsonObject bad = enqueueFolder(other, "not-an-id", "Not A Kind", false);
    assertThat(code(bad)).isEqualTo("BAD_USER_INPUT");
    assertThat(bad.getJsonArray("errors").getJsonObject(0).getJsonObject("extensions").getJsonObject("fields")
        .fieldNames()).containsExactlyInAnyOrder("folderId", "kind");
    // the permission of enqueueJob: a member below editor is refused the same way
    files(kept, "kept", 1, "video/mp4");
    JsonObject single = gql(user, "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id } }",
        new JsonObject().put("f", fileId("kept-1")).put("k", PROXY));
    assertThat(code(enqueueFolder(user, kept, PROXY, false))).isEqualTo(code(single)).isEqualTo("FORBIDDEN");
    assertThat(code(enqueueFolder(null, kept, PROXY, false))).isEqualTo("UNAUTHENTICATED");
    assertThat(openJobs("f.folder_id = '" + kept + "'")).isZero();
  }

  @Test
  void aPersonsJobGoesAheadOfTheBacklogAndEachPriorityGoesOldestFirst() {
    String kind = "acme/ordered"; // accepts every file, served by this test's worker only
    ContractWorker worker = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("ordered-worker", kind));
    assertThat(worker.register().status()).isEqualTo(201);
    String backlog = Folders.create(app.client(), admin, "Backlog");
    String singles = folder("Ordered singles", null);
    files(backlog, "backlog", 5, "application/pdf");
    files(singles, "person", 2, "text/plain");

    String first = GraphqlHttp.enqueueJob(app.client(), admin, fileId("person-1"), kind);
    assertThat(counts(admin, backlog, kind, false)).containsExactly(5, 0, 0);
    String later = GraphqlHttp.enqueueJob(app.client(), admin, fileId("person-2"), kind);
    // a person asks for one file of the backlog: its queued job moves ahead (same job, priority 0)
    String backlogJob = app.db().text("SELECT id FROM pipeline_jobs WHERE file_id = '" + fileId("backlog-3") + "'");
    JsonObject asked = GraphqlHttp.data(gql(admin,
        "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id priority seq } }",
        new JsonObject().put("f", fileId("backlog-3")).put("k", kind))).getJsonObject("enqueueJob");
    assertThat(asked.getString("id")).isEqualTo(backlogJob);
    assertThat(asked.getInteger("priority")).isZero();
    assertThat(asked.getLong("seq")).isEqualTo(1);

    List<String> rest = app.db().texts("SELECT j.id FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
        + "WHERE f.folder_id = '" + backlog + "' AND j.id <> '" + backlogJob + "' ORDER BY f.id");
    List<String> expected = new ArrayList<>(List.of(first, backlogJob, later));
    expected.addAll(rest);
    List<String> claimed = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      claimed.add(claim(worker));
    }
    assertThat(claimed).containsExactlyElementsOf(expected);
    assertThat(worker.next().status()).isEqualTo(204);
  }

  /** One claim through the worker contract: the job's id. */
  static String claim(ContractWorker worker) {
    ContractWorker.Answer a = worker.next();
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    return a.job().getString("id");
  }
}
