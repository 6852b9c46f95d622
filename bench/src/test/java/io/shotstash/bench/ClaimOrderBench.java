package io.shotstash.bench;

import io.shotstash.db.Database;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The claim with 100,000 queued jobs (issue #20, item 4), on whichever build is on the class path:
 * {@code bench/claim-order.sh} runs it on the code before job priority (main's claim statement and
 * its (created_at, id) index, V4) and on this tree's (priority first, V13's index), round after round
 * in one session, then writes the report.
 *
 * <p>Each run: a fresh database with that build's migrations; {@code --jobs} queued jobs of one kind
 * (each on its own file, queued 10 ms apart, claimable), the same number of finished jobs beside them
 * (a table with history), and, where the build has priorities, one job in a hundred a person's
 * (priority 0) and the rest a folder's backlog (priority 1); then VACUUM ANALYZE, as autovacuum would
 * have. Then {@code --claims} claims through the build's own claim statement ({@code
 * PipelineSql.CLAIM_BATCH}, read by reflection, so no copy of the SQL can drift), on one connection set
 * up as the job queue's asynchronous-commit pool is (prepared statements cached, {@code
 * plan_cache_mode = force_generic_plan}, {@code synchronous_commit = off}), one statement after the
 * other, for batches of 1 and of 16 callers. Also: the plan's index (EXPLAIN of the prepared claim)
 * and how many queued jobs a person's job queued after the backlog would wait behind.
 */
public final class ClaimOrderBench {
  static final String SECTION = "## Pipeline: the claim with 100,000 queued jobs (job priority)";
  static final String KIND = "bench/claim";

  private ClaimOrderBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = BenchSupport.parseOptions(args, BenchSupport.options("label", "after", "round", "1",
        "jobs", "100000", "claims", "4000", "warmup", "400", "batches", "1,16", "json", "", "report", "",
        "work", "target", "out", "docs/benchmarks.md", "command", "bench/claim-order.sh", "before", "?",
        "folder", "50000"));
    if (!o.get("report").isEmpty()) {
      report(Path.of(o.get("report")), o);
    } else {
      JsonObject run = measure(o);
      System.out.println(run.encode());
      if (!o.get("json").isEmpty()) {
        Files.writeString(Path.of(o.get("json")), run.encode() + "\n", StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
    }
    System.exit(0);
  }

  // ------------------------------------------------------------------------------------ one run

  static JsonObject measure(Map<String, String> o) throws Exception {
    int jobs = Integer.parseInt(o.get("jobs"));
    int claims = Integer.parseInt(o.get("claims"));
    int warmup = Integer.parseInt(o.get("warmup"));
    List<Integer> batches =
        Arrays.stream(o.get("batches").split(",")).map(String::trim).map(Integer::parseInt).toList();
    String claimSql = claimStatement();
    JsonObject run = new JsonObject().put("label", o.get("label")).put("round", Integer.parseInt(o.get("round")))
        .put("jobs", jobs);
    Vertx vertx = Vertx.vertx();
    try (TestDatabase db = TestDatabase.create()) {
      db.migrate();
      boolean priorities;
      List<UUID> workers = new ArrayList<>();
      try (Connection c = Database.connect(db.url()); Statement s = c.createStatement()) {
        priorities = fill(s, jobs, batches.stream().mapToInt(Integer::intValue).max().orElse(1), workers);
        run.put("priorities", priorities);
        run.put("plan", plan(s, claimSql, workers.get(0)));
        run.put("waitsBehind", waitsBehind(s, priorities));
        JsonObject fresh = new JsonObject();
        for (int batch : batches) {
          fresh.put(String.valueOf(batch), pagesTouched(c, s, claimSql, workers.subList(0, batch)));
        }
        run.put("pagesFresh", fresh);
      }
      PgConnectOptions connect = queueOptions(db).addProperty("synchronous_commit", "off");
      Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(connect).using(vertx).build();
      claimMany(pool, claimSql, workers, 1, warmup); // plans, caches and the first pages, for every batch size alike
      JsonArray results = new JsonArray();
      for (int batch : batches) {
        List<Long> nanos = claimMany(pool, claimSql, workers, batch, claims);
        long total = nanos.stream().mapToLong(Long::longValue).sum();
        List<Long> sorted = nanos.stream().sorted().toList();
        JsonObject r = new JsonObject().put("batch", batch).put("statements", nanos.size())
            .put("claims", nanos.size() * batch)
            .put("p50ms", sorted.get(sorted.size() / 2) / 1e6)
            .put("p99ms", sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1)) / 1e6)
            .put("claimsPerSecond", nanos.size() * batch / (total / 1e9));
        BenchSupport.log("%s round %s: batch %d, %d statements, p50 %.3f ms, p99 %.3f ms, %,.0f claims/s",
            o.get("label"), o.get("round"), batch, nanos.size(), r.getDouble("p50ms"), r.getDouble("p99ms"),
            r.getDouble("claimsPerSecond"));
        results.add(r);
      }
      run.put("results", results);
      try (Connection c = Database.connect(db.url()); Statement s = c.createStatement()) {
        JsonObject pages = new JsonObject();
        for (int batch : batches) {
          pages.put(String.valueOf(batch), pagesTouched(c, s, claimSql, workers.subList(0, batch)));
        }
        run.put("pages", pages);
      }
      int folderFiles = Integer.parseInt(o.get("folder"));
      if (folderFiles > 0 && hasFolderEnqueue()) {
        run.put("folder", folderWhileClaiming(db, vertx, pool, claimSql, workers, folderFiles));
      }
      pool.close().await(30, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    return run;
  }

  /** A connection as the job queue's pools make one (Database.queuePools): statements cached, generic plans. */
  static PgConnectOptions queueOptions(TestDatabase db) {
    PgConnectOptions connect = new PgConnectOptions().setHost(db.url().host()).setPort(db.url().port())
        .setDatabase(db.url().database()).setUser(db.url().user()).setCachePreparedStatements(true)
        .addProperty("plan_cache_mode", "force_generic_plan");
    if (db.url().password() != null) {
      connect.setPassword(db.url().password());
    }
    return connect;
  }

  static boolean hasFolderEnqueue() {
    try {
      Class.forName("io.shotstash.pipeline.FolderEnqueue");
      return true;
    } catch (ClassNotFoundException e) {
      return false; // the code before job priority
    }
  }

  /**
   * enqueueFolder on a folder of {@code files} files, through the build's own {@code FolderEnqueue}
   * (on a connection set up as the job queue's durable pool), while this thread claims one job a
   * statement on the claim's connection until it answers: how long the folder took, and the claims'
   * times meanwhile.
   */
  static JsonObject folderWhileClaiming(TestDatabase db, Vertx vertx, Pool claims,
      String claimSql, List<UUID> workers, int files) throws Exception {
    UUID folder = UUID.randomUUID();
    try (Connection c = Database.connect(db.url()); Statement s = c.createStatement()) {
      s.execute("INSERT INTO folders (id, name) VALUES ('" + folder + "', 'bench folder')");
      s.execute(
          "INSERT INTO media_files (id, folder_id, name, mime_type, size, storage_key) SELECT gen_random_uuid(), '"
              + folder + "', 'folder-' || i, 'video/mp4', 1000, 'bench/folder-' || i FROM generate_series(1, " + files
              + ") AS i");
      s.execute("VACUUM ANALYZE media_files");
    }
    Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(queueOptions(db)).using(vertx)
        .build();
    Class<?> type = Class.forName("io.shotstash.pipeline.FolderEnqueue");
    var constructor = type.getDeclaredConstructor(Pool.class);
    constructor.setAccessible(true);
    Object enqueue = constructor.newInstance(pool);
    var method = type.getDeclaredMethod("enqueue", JsonObject.class);
    method.setAccessible(true);
    long t0 = System.nanoTime();
    @SuppressWarnings("unchecked")
    io.vertx.core.Future<JsonObject> answer = (io.vertx.core.Future<JsonObject>) method.invoke(enqueue,
        new JsonObject().put("folderId", folder.toString()).put("kind", KIND).put("includeSubfolders", false));
    List<Long> during = new ArrayList<>();
    while (!answer.isComplete()) {
      during.addAll(claimMany(claims, claimSql, workers, 1, 1));
    }
    long t1 = System.nanoTime();
    JsonObject counts = answer.await();
    pool.close().await(30, TimeUnit.SECONDS);
    List<Long> sorted = during.stream().sorted().toList();
    JsonObject r = new JsonObject().put("files", files).put("seconds", (t1 - t0) / 1e9).put("answer", counts)
        .put("claimsDuring", during.size());
    if (!sorted.isEmpty()) {
      r.put("p50ms", sorted.get(sorted.size() / 2) / 1e6)
          .put("p99ms", sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1)) / 1e6)
          .put("maxms", sorted.get(sorted.size() - 1) / 1e6);
    }
    BenchSupport.log("enqueueFolder of %,d files: %.2f s, %s; %d claims meanwhile, %s", files, r.getDouble("seconds"),
        counts.encode(), during.size(), r.encode());
    return r;
  }

  /** The build's own claim statement. */
  static String claimStatement() throws ReflectiveOperationException {
    Field f = Class.forName("io.shotstash.pipeline.PipelineSql").getDeclaredField("CLAIM_BATCH");
    f.setAccessible(true);
    return (String) f.get(null);
  }

  /**
   * The queue: {@code jobs} queued jobs on as many files, as many finished ones, {@code workers} worker
   * rows. Answers whether the build has job priorities.
   */
  static boolean fill(Statement s, int jobs, int workerCount, List<UUID> workers) throws Exception {
    boolean priorities;
    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.columns "
        + "WHERE table_name = 'pipeline_jobs' AND column_name = 'priority'")) {
      rs.next();
      priorities = rs.getLong(1) > 0;
    }
    s.execute("INSERT INTO pipeline_kinds (name) VALUES ('" + KIND + "')");
    SecureRandom random = new SecureRandom();
    for (int i = 0; i < workerCount; i++) {
      UUID id = UUID.randomUUID();
      byte[] hash = new byte[32];
      random.nextBytes(hash);
      s.execute("INSERT INTO pipeline_workers (id, name, token_hash, version, kinds, contract) VALUES ('" + id
          + "', 'claimer-" + i + "', '\\x" + hex(hash) + "', '1', ARRAY['" + KIND + "'], '1')");
      workers.add(id);
    }
    // the per-row NOTIFY of queued jobs is for live listeners; nobody listens to this database
    s.execute("ALTER TABLE pipeline_jobs DISABLE TRIGGER pipeline_jobs_queued");
    s.execute("INSERT INTO media_files (id, name, mime_type, size, storage_key) SELECT gen_random_uuid(), "
        + "'bench-' || i, 'video/mp4', 1000, 'bench/' || i FROM generate_series(1, " + jobs + ") AS i");
    String priority = priorities ? ", priority" : "";
    String priorityValue = priorities ? ", CASE WHEN f.n % 100 = 0 THEN 0 ELSE 1 END" : "";
    s.execute("INSERT INTO pipeline_jobs (id, file_id, kind, status, attempts, progress, finished_at, created_at, "
        + "updated_at, run_after) SELECT gen_random_uuid(), f.id, '" + KIND + "', 'done', 1, 100, "
        + "now() - interval '3 hours', now() - interval '4 hours', now() - interval '3 hours', "
        + "now() - interval '4 hours' FROM media_files f");
    s.execute("INSERT INTO pipeline_jobs (id, file_id, kind, created_at, updated_at, run_after" + priority + ") "
        + "SELECT gen_random_uuid(), f.id, '" + KIND + "', now() - interval '2 hours' + f.n * interval '10 ms', "
        + "now() - interval '2 hours' + f.n * interval '10 ms', now() - interval '2 hours' + f.n * interval '10 ms'"
        + priorityValue + " FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM media_files) f");
    s.execute("ALTER TABLE pipeline_jobs ENABLE TRIGGER pipeline_jobs_queued");
    s.execute("VACUUM ANALYZE pipeline_jobs, media_files, pipeline_workers");
    return priorities;
  }

  /** The claim's plan as the job queue's sessions run it (generic); only the lines that name an index or a sort. */
  static String plan(Statement s, String claimSql, UUID worker) throws Exception {
    s.execute("SET plan_cache_mode = force_generic_plan");
    s.execute("PREPARE bench_claim(text[], uuid[], bytea[]) AS " + claimSql);
    List<String> lines = new ArrayList<>();
    try (ResultSet rs = s.executeQuery("EXPLAIN (COSTS OFF) EXECUTE bench_claim(ARRAY['" + KIND + "'], ARRAY['"
        + worker + "']::uuid[], ARRAY['\\x00']::bytea[])")) {
      while (rs.next()) {
        String line = rs.getString(1).strip();
        if (line.contains("pipeline_jobs_claim") || line.contains("Sort Key")
            || (line.contains("Index") && line.contains("pipeline_jobs"))) {
          lines.add(line.replaceFirst("^->\\s*", ""));
        }
      }
    }
    s.execute("DEALLOCATE bench_claim");
    return String.join("; ", lines);
  }

  /**
   * The pages (shared buffers hit or read) one claim statement of these callers touches, from EXPLAIN
   * (ANALYZE, BUFFERS) of the prepared claim with a generic plan, rolled back: a count, not a time, so
   * the load of a shared machine does not move it. The third of three runs (the first ones set hint bits).
   */
  static long pagesTouched(Connection c, Statement s, String claimSql, List<UUID> callers) throws Exception {
    s.execute("SET plan_cache_mode = force_generic_plan");
    s.execute("PREPARE bench_pages(text[], uuid[], bytea[]) AS " + claimSql);
    StringBuilder workers = new StringBuilder();
    StringBuilder tokens = new StringBuilder();
    for (UUID w : callers) {
      workers.append(workers.length() == 0 ? "" : ",").append('"').append(w).append('"');
      tokens.append(tokens.length() == 0 ? "" : ",").append("\\\\x00");
    }
    long pages = -1;
    c.setAutoCommit(false);
    try {
      for (int i = 0; i < 3; i++) {
        try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE bench_pages("
            + "ARRAY['" + KIND + "'], '{" + workers + "}'::uuid[], '{" + tokens + "}'::bytea[])")) {
          pages = -1;
          while (rs.next()) {
            String line = rs.getString(1).strip();
            if (pages < 0 && line.startsWith("Buffers:")) {
              pages = java.util.regex.Pattern.compile("(hit|read|dirtied|written)=(\\d+)").matcher(line).results()
                  .filter(m -> m.group(1).equals("hit") || m.group(1).equals("read"))
                  .mapToLong(m -> Long.parseLong(m.group(2))).sum();
            }
          }
        }
        c.rollback();
      }
    } finally {
      c.setAutoCommit(true);
    }
    s.execute("DEALLOCATE bench_pages");
    return pages;
  }

  /** How many queued jobs a person's job queued now, after the whole backlog, waits behind in the claim order. */
  static long waitsBehind(Statement s, boolean priorities) throws Exception {
    String ahead = priorities ? "priority < 0 OR (priority = 0 AND created_at < now())" : "created_at < now()";
    try (ResultSet rs =
        s.executeQuery("SELECT count(*) FROM pipeline_jobs WHERE status = 'queued' AND (" + ahead + ")")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** {@code claims} claims, {@code batch} callers a statement, one statement after the other: each statement's time. */
  static List<Long> claimMany(Pool pool, String claimSql, List<UUID> workers, int batch, int claims) {
    String[] kinds = {KIND};
    UUID[] callers = workers.subList(0, batch).toArray(UUID[]::new);
    SecureRandom random = new SecureRandom();
    List<Long> nanos = new ArrayList<>();
    for (int done = 0; done < claims; done += batch) {
      Buffer[] hashes = new Buffer[batch];
      for (int i = 0; i < batch; i++) {
        byte[] token = new byte[32];
        random.nextBytes(token);
        hashes[i] = Buffer.buffer(token);
      }
      long t0 = System.nanoTime();
      RowSet<Row> rows = pool.preparedQuery(claimSql).execute(Tuple.of(kinds, callers, hashes)).await();
      nanos.add(System.nanoTime() - t0);
      if (rows.size() != batch) {
        throw new IllegalStateException("a claim of " + batch + " took " + rows.size() + " jobs: the queue ran dry");
      }
    }
    return nanos;
  }

  static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    for (byte b : bytes) {
      sb.append(String.format("%02x", b));
    }
    return sb.toString();
  }

  // ------------------------------------------------------------------------------------ the report

  static void report(Path jsonLines, Map<String, String> o) throws Exception {
    List<JsonObject> runs =
        Files.readAllLines(jsonLines).stream().filter(l -> !l.isBlank()).map(JsonObject::new).toList();
    BenchSupport.Machine machine = BenchSupport.Machine.probe(Path.of(o.get("work")));
    // label -> batch -> the runs' figures
    Map<String, Map<Integer, List<JsonObject>>> by = new LinkedHashMap<>();
    Map<String, JsonObject> anyRun = new LinkedHashMap<>();
    for (String label : List.of("before", "after")) {
      by.put(label, new TreeMap<>());
    }
    for (JsonObject run : runs) {
      anyRun.putIfAbsent(run.getString("label"), run);
      for (Object r : run.getJsonArray("results")) {
        JsonObject result = (JsonObject) r;
        by.get(run.getString("label")).computeIfAbsent(result.getInteger("batch"), b -> new ArrayList<>()).add(result);
      }
    }
    JsonObject before = anyRun.get("before");
    JsonObject after = anyRun.get("after");
    StringBuilder md = new StringBuilder(SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s` (`ClaimOrderBench`, see `bench/README.md`): the"
        + " code before job priority (commit `%s`, the merge base with `main`) and this tree (`%s`), %d rounds each,"
        + " alternating, in one session.%n%n", machine.date(), o.get("command"), o.get("before"), machine.commit(),
        runs.size() / 2));
    md.append(machine.markdown()).append('\n');
    md.append(String.format(Locale.ROOT, "Each run: a fresh database with that code's migrations, %,d queued jobs of"
        + " one kind (one file each, queued 10 ms apart, all claimable) beside as many finished ones, then VACUUM"
        + " ANALYZE. With priorities, one queued job in a hundred is a person's (priority 0) and the rest a folder's"
        + " backlog (priority 1). Then claims through that code's own claim statement (`PipelineSql.CLAIM_BATCH`,"
        + " read by reflection), on one connection set up as the job queue's (prepared statements cached,"
        + " `plan_cache_mode = force_generic_plan`, `synchronous_commit = off`), one statement after the other:"
        + " first %s claims to warm up, then %s claims with 1 caller a statement and as many with 16 (the"
        + " batched claim of `operations.md`). Figures: the median over the rounds of each run's per-statement"
        + " median and 99th percentile, and of its claims per second.%n%n",
        before == null ? 0 : before.getInteger("jobs"), o.get("warmup"), o.get("claims")));
    md.append("| code | callers a statement | statements | median (ms) | p99 (ms) | claims/s |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (var label : by.entrySet()) {
      for (var batch : label.getValue().entrySet()) {
        List<JsonObject> rs = batch.getValue();
        md.append(String.format(Locale.ROOT, "| %s | %d | %d | %.3f | %.3f | %,.0f |%n", label.getKey(), batch.getKey(),
            rs.get(0).getInteger("statements"), median(rs, "p50ms"), median(rs, "p99ms"),
            median(rs, "claimsPerSecond")));
      }
    }
    md.append('\n');
    md.append("- Pages one claim statement touches (shared buffers hit or read; EXPLAIN (ANALYZE, BUFFERS) of the"
        + " prepared claim, rolled back; the median over the rounds; a count the machine's load does not move), on"
        + " the freshly vacuumed queue and after the timed claims (their claimed jobs' dead entries still at the"
        + " head of the claim index, not yet vacuumed): " + pages(runs, "pagesFresh") + "; after the claims: "
        + pages(runs, "pages") + ".\n");
    for (int batch : by.get("after").keySet()) {
      List<JsonObject> b = by.get("before").get(batch);
      List<JsonObject> a = by.get("after").get(batch);
      if (b != null && a != null) {
        md.append(String.format(Locale.ROOT, "- %d caller%s a statement: after / before = %.2f in median time, %.2f in"
            + " claims per second.%n", batch, batch == 1 ? "" : "s", median(a, "p50ms") / median(b, "p50ms"),
            median(a, "claimsPerSecond") / median(b, "claimsPerSecond")));
      }
    }
    if (before != null) {
      md.append(String.format(Locale.ROOT, "- The plan before: `%s`. A person's job queued after the backlog waited"
          + " behind %,d queued jobs.%n", before.getString("plan"), before.getLong("waitsBehind")));
    }
    if (after != null) {
      md.append(String.format(Locale.ROOT, "- The plan after: `%s`. A person's job queued after the backlog waits"
          + " behind %,d (the other persons' jobs, older than it; none of the backlog).%n", after.getString("plan"),
          after.getLong("waitsBehind")));
    }
    List<JsonObject> folders = runs.stream().filter(r -> r.containsKey("folder")).map(r -> r.getJsonObject("folder"))
        .toList();
    if (!folders.isEmpty()) {
      md.append(String.format(Locale.ROOT, "%n**enqueueFolder on %,d files, while claiming.** In each run of this"
          + " tree, after the claims above: a folder of %,d files (a kind that takes them all) queued through the"
          + " code's own `FolderEnqueue` (batches of 1,000, one transaction each, on a connection set up as the"
          + " job queue's durable pool), while one claim after the other ran on the claim's connection until it"
          + " answered.%n%n", folders.get(0).getInteger("files"), folders.get(0).getInteger("files")));
      md.append(
          "| round | enqueueFolder (s) | queued | claims meanwhile | their median (ms) | p99 (ms) | max (ms) |\n");
      md.append("|---:|---:|---:|---:|---:|---:|---:|\n");
      int round = 1;
      for (JsonObject f : folders) {
        md.append(String.format(Locale.ROOT, "| %d | %.2f | %,d | %,d | %.3f | %.3f | %.3f |%n", round++,
            f.getDouble("seconds"), f.getJsonObject("answer").getLong("queued"), f.getInteger("claimsDuring"),
            f.getDouble("p50ms", 0.0), f.getDouble("p99ms", 0.0), f.getDouble("maxms", 0.0)));
      }
      md.append("\nThe claims' median during the folder is to be read beside the median of 1 caller a statement"
          + " above (same connection, same statement).\n");
    }
    if (!o.get("out").equals("-")) { // --out=-: print only
      BenchSupport.replaceSection(Path.of(o.get("out")), SECTION, md.toString());
    }
    System.out.print(md);
  }

  /** "before a with 1 caller, b with 16 callers; after ..." from each run's {@code field}, the median over the rounds. */
  static String pages(List<JsonObject> runs, String field) {
    List<String> parts = new ArrayList<>();
    for (String label : List.of("before", "after")) {
      Map<String, List<Double>> byBatch = new TreeMap<>(java.util.Comparator.comparingInt(Integer::parseInt));
      for (JsonObject run : runs) {
        if (label.equals(run.getString("label")) && run.containsKey(field)) {
          run.getJsonObject(field).forEach(e -> byBatch.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
              .add(((Number) e.getValue()).doubleValue()));
        }
      }
      List<String> figures = new ArrayList<>();
      byBatch.forEach((batch, values) -> figures.add(String.format(Locale.ROOT, "%.0f with %s caller%s",
          BenchSupport.medianOf(values), batch, batch.equals("1") ? "" : "s")));
      parts.add(label + " " + String.join(", ", figures));
    }
    return String.join("; ", parts);
  }

  static double median(List<JsonObject> results, String field) {
    return BenchSupport.medianOf(results.stream().map(r -> r.getDouble(field)).toList());
  }
}
