package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.data;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.testing.ContractWorker.Claimed;
import io.shotstash.testing.Folders;
import io.shotstash.testing.Repo;
import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The domain's numbers on {@code GET /metrics} after a known sequence of jobs and votes: each
 * counter moved by exactly what happened (the registry is the process's, so the test compares two
 * scrapes), the queue's gauges show an open job, and every series docs/grafana-dashboard.json draws
 * is in the scrape.
 */
class DomainMetricsScrapeTest {
  static final String BOOT = "domain-metrics-bootstrap-token-01234567";
  static final Pattern SERIES = Pattern.compile("^([a-z_:]+)(\\{[^}]*\\})? (\\S+)$");
  static TestApp app;
  static ModerationHarness h;
  static String admin;
  static String folder;

  @BeforeAll
  static void start() {
    app = TestApp.start(Map.of("SHOTSTASH_PURGE_SWEEP_SECONDS", "86400", "WORKER_BOOTSTRAP_TOKEN", BOOT));
    h = new ModerationHarness(app);
    admin = app.setupAndLogin();
    folder = Folders.create(app.client(), admin, "inputs");
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /** One scrape: each series (name and labels as printed) and its value. */
  record Scrape(Map<String, Double> series) {
    static Scrape now() {
      var r = app.client().get("/metrics").send().await();
      assertThat(r.statusCode()).isEqualTo(200);
      Map<String, Double> out = new java.util.HashMap<>();
      for (String line : r.bodyAsString().split("\n")) {
        Matcher m = SERIES.matcher(line);
        if (!line.startsWith("#") && m.matches()) {
          out.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
        }
      }
      return new Scrape(out);
    }

    /** The sum of the series named {@code name} whose labels include every one of {@code labels} ({@code k="v"}). */
    double value(String name, String... labels) {
      return series.entrySet().stream().filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
          .filter(e -> List.of(labels).stream().allMatch(l -> e.getKey().contains(l))).mapToDouble(Map.Entry::getValue)
          .sum();
    }

    boolean has(String name) {
      return series.keySet().stream().anyMatch(k -> k.equals(name) || k.startsWith(name + "{"));
    }
  }

  static double delta(Scrape before, Scrape after, String name, String... labels) {
    return after.value(name, labels) - before.value(name, labels);
  }

  @Test
  void countersMoveByWhatHappenedAndTheDashboardsSeriesAreAllThere() throws Exception {
    String staff = h.member(admin, "stf", "staff");
    h.createPerson(admin, "sam", "user");
    h.createPerson(admin, "lee", "user");
    Scrape before = Scrape.now();

    // the queue: one job done, one failed for good, one left waiting with no worker for its kind
    Claimed done = Claimed.fresh(app, BOOT, admin, folder, "metrics-done");
    assertThat(done.worker().output(done.id(), done.claim(), "video/mp4", "mp4", Buffer.buffer("out")).status())
        .isEqualTo(200);
    assertThat(done.worker().complete(done.id(), done.claim()).status()).isEqualTo(200);
    Claimed failed = Claimed.fresh(app, BOOT, admin, folder, "metrics-failed");
    assertThat(failed.worker().fail(failed.id(), failed.claim(), "cannot read it", false).status()).isEqualTo(200);
    // and one whose worker went silent: the sweeper takes it back for another attempt
    Claimed lost = Claimed.fresh(app, BOOT, admin, folder, "metrics-lost");
    app.db()
        .execute("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = '" + lost.id() + "'");
    app.vertx().eventBus().<JsonObject>request(Addresses.PIPELINE_SWEEP, new JsonObject()).await();
    // moderation: a spam vote, a legit vote and an administrator's purge
    data(h.vote(staff, "sam", "spam"));
    data(h.vote(staff, "lee", "legit"));
    data(h.post("/api/people/sam/purge", admin, new JsonObject().put("reason", "spam account")));

    Scrape after = Scrape.now();
    String doneKind = "kind=\"test/metrics-done\"";
    String failedKind = "kind=\"test/metrics-failed\"";
    assertThat(delta(before, after, "shotstash_job_claims_total", doneKind)).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_job_claims_total", failedKind)).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_job_queue_wait_seconds_count", doneKind)).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_job_completes_total", doneKind)).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_job_completes_total", failedKind)).isZero();
    assertThat(delta(before, after, "shotstash_job_run_seconds_count", doneKind)).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_job_fails_total", failedKind, "outcome=\"failed\"")).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_job_fails_total", failedKind, "outcome=\"retried\"")).isZero();
    assertThat(delta(before, after, "shotstash_job_sweeper_requeues_total", "kind=\"test/metrics-lost\"",
        "outcome=\"requeued\"")).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_moderation_votes_total", "actor=\"human\"", "verdict=\"spam\""))
        .isEqualTo(1);
    assertThat(delta(before, after, "shotstash_moderation_votes_total", "actor=\"human\"", "verdict=\"legit\""))
        .isEqualTo(1);
    assertThat(delta(before, after, "shotstash_moderation_votes_total", "actor=\"agent\"")).isZero();
    assertThat(delta(before, after, "shotstash_moderation_purges_total", "actor=\"human\"")).isEqualTo(1);
    assertThat(delta(before, after, "shotstash_git_commit_seconds_count")).as("two votes and a purge").isEqualTo(3);
    assertThat(after.has("shotstash_git_writer_queue")).isTrue();

    // the gauges are read from PostgreSQL every 15 s: a job nobody claims shows as queued
    String waitingFile = upload("waiting.mp4");
    Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.ENQUEUE,
        new JsonObject().put("fileId", waitingFile).put("kind", "test/metrics-failed")).await();
    Scrape sampled = awaitScrape(s -> s.value("shotstash_jobs", "status=\"queued\"", failedKind) == 1, 25);
    assertThat(sampled.has("shotstash_jobs_oldest_claimable_age_seconds")).isTrue();
    assertThat(sampled.value("shotstash_workers_live")).isGreaterThanOrEqualTo(2);

    // every series the dashboard draws is in the scrape
    assertThat(dashboardSeries()).isNotEmpty().allSatisfy(name -> assertThat(sampled.has(name))
        .as("%s, drawn by docs/grafana-dashboard.json, is in the scrape", name).isTrue());
  }

  private static String upload(String name) {
    var r = app.client().post("/api/v1/files").bearerTokenAuthentication(admin).addQueryParam("folderId", folder)
        .putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", name).sendBuffer(Buffer.buffer("video"))
        .await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getJsonObject("data").getString("id");
  }

  private static Scrape awaitScrape(java.util.function.Predicate<Scrape> ok, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    Scrape s = Scrape.now();
    while (!ok.test(s)) {
      assertThat(System.nanoTime()).as("the gauges within %d s: %s", seconds, s.series()).isLessThan(deadline);
      Thread.sleep(250);
      s = Scrape.now();
    }
    return s;
  }

  /** The metric names in the dashboard's queries (a histogram's {@code _bucket} series included). */
  static List<String> dashboardSeries() throws IOException {
    JsonObject dashboard = new JsonObject(Files.readString(Repo.path("docs/grafana-dashboard.json")));
    TreeSet<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("shotstash_[a-z_]+").matcher(String.join("\n", expressions(dashboard)));
    while (m.find()) {
      names.add(m.group());
    }
    return new ArrayList<>(names);
  }

  private static List<String> expressions(JsonObject dashboard) {
    List<String> out = new ArrayList<>();
    for (Object p : dashboard.getJsonArray("panels", new JsonArray())) {
      for (Object t : ((JsonObject) p).getJsonArray("targets", new JsonArray())) {
        out.add(((JsonObject) t).getString("expr"));
      }
    }
    return out;
  }
}
