package io.shotstash.bench;

import io.shotstash.app.WriteRules;
import io.shotstash.auth.Actor;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.moderation.ModerationWrites;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.GitWriterVerticle;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The community and moderation benchmarks of issues #5 and #6 (bench/moderation.sh runs this;
 * bench/README.md says what each measures). For each size N (default 1,000 and 32,000 members):
 *
 * <ol>
 *   <li><b>seed-demo</b>: {@code java -jar shotstash.jar seed-demo --members N} on a fresh database and
 *       data folder, timed;
 *   <li><b>start-up to ready</b>: {@code java -jar shotstash.jar serve} on that instance, from starting
 *       the process to the first {@code 200} of {@code GET /ready}, {@code startups} times;
 *   <li><b>roster</b>: with the last start still running, staff (demo-admin, signed in with the
 *       password seed-demo printed) read {@code GET /api/admin/members} page 1 with several {@code q}
 *       filters, one request after another over one keep-alive connection; p50/p90/p99 per filter;
 *   <li><b>vote commits</b>, after the app is stopped: the app's own {@link GitWriterVerticle} with all
 *       its write rules ({@link WriteRules#all()}) on the instance's repository and database, taking
 *       staff {@code moderation.vote} commands (legit votes on active members, one evaluation record
 *       each) with {@code inFlight} in flight, beside the raw JGit path-only commit loop
 *       ({@link GitTreeWriter#commit}) writing the same record on the same repository. Both sizes and
 *       both modes are interleaved in slices, so load from elsewhere hits every figure alike.
 * </ol>
 *
 * <p>Votes are measured in-process because the HTTP route allows an account 30 writes a minute: over
 * HTTP one staff account could make 0.5 vote commits a second, which measures the limit, not the
 * writer. The HTTP path of one vote is exercised by the moderation tests.
 *
 * <p>Options ({@code --name=value}): see {@link #defaults()}; {@code out=-} prints only.
 */
public final class ModerationBench {
  static final String STARTUP_SECTION = "## Community: start-up after seed-demo";
  static final String MODERATION_SECTION = "## Moderation: roster and vote commits";
  private static final Pattern PASSWORD =
      Pattern.compile("Sign in as demo-admin with the password (\\S+) \\(shown once\\)");

  private ModerationBench() {}

  static Map<String, String> defaults() {
    return BenchSupport.options(
        "sizes", "1000,32000", "startups", "7", "rosterWarmup", "100", "rosterRequests", "300",
        "commits", "1000", "slice", "100", "warmup", "100", "inFlight", "16", "jar", "target/shotstash.jar",
        "work", "target/bench-moderation", "out", "docs/benchmarks.md", "command", "bench/moderation.sh");
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = BenchSupport.parseOptions(args, defaults());
    List<Integer> sizes = Arrays.stream(o.get("sizes").split(",")).map(String::strip).map(Integer::parseInt).toList();
    Path jar = Path.of(o.get("jar")).toAbsolutePath();
    Path work = Files.createDirectories(Path.of(o.get("work")).toAbsolutePath());
    Runtime.getRuntime().addShutdownHook(new Thread(BenchSupport::closeAll, "bench-cleanup"));
    BenchSupport.Machine machine = BenchSupport.Machine.probe(work);
    BenchSupport.log("%s", machine.markdown().replace("\n", " "));

    List<Instance> instances = new ArrayList<>();
    try {
      for (int n : sizes) {
        Instance instance = BenchSupport.open(new Instance(n, jar, work));
        instances.add(instance);
        instance.seed();
        // start 1: right after seed-demo (which wrote the state snapshot); start 2: without the snapshot
        // (every file read, the snapshot written again); then restarts
        for (int i = 0; i < Integer.parseInt(o.get("startups")); i++) {
          if (i == 1) {
            Files.delete(instance.dataDir.resolve("public-state.snapshot"));
          }
          instance.startAndTime();
          if (i + 1 < Integer.parseInt(o.get("startups"))) {
            instance.stop();
          }
        }
        instance.roster(Integer.parseInt(o.get("rosterWarmup")), Integer.parseInt(o.get("rosterRequests")));
        instance.stop();
      }
      VoteRun votes = new VoteRun(instances, Integer.parseInt(o.get("commits")), Integer.parseInt(o.get("slice")),
          Integer.parseInt(o.get("warmup")), Integer.parseInt(o.get("inFlight")));
      votes.run();
      String command = o.get("command");
      String startup = startupSection(machine, command, instances);
      String moderation = moderationSection(machine, command, instances, votes);
      if ("-".equals(o.get("out"))) {
        System.out.println(startup);
        System.out.println(moderation);
      } else {
        BenchSupport.replaceSection(Path.of(o.get("out")), STARTUP_SECTION, startup);
        BenchSupport.replaceSection(Path.of(o.get("out")), MODERATION_SECTION, moderation);
        BenchSupport.log("wrote %s", o.get("out"));
      }
    } finally {
      BenchSupport.closeAll();
    }
    BenchSupport.log("done");
    System.exit(0); // Vert.x leaves non-daemon threads behind
  }

  // ------------------------------------------------------------------------------------ one instance

  /** Percentiles of one roster filter. */
  record Latency(String label, String query, long totalItems, int rows, double p50, double p90, double p99,
      double max) {}

  /** One seeded instance: its database, data folder and (while it runs) the app's process. */
  static final class Instance implements AutoCloseable {
    final int n;
    final Path jar;
    final TestDatabase db;
    final Path dataDir;
    final Path logFile;
    final int port;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(1)).build();
    /** Start-up to ready, in order: after seed-demo, without the snapshot, then restarts. */
    final List<Double> startupMillis = new ArrayList<>();
    /** How each start loaded the state, from the app's log ("from every file ...", "from the snapshot ..."). */
    final List<String> loadedHow = new ArrayList<>();
    final List<Latency> roster = new ArrayList<>();
    double seedSeconds;
    long repoBytes;
    String adminPassword;
    Process process;

    Instance(int n, Path jar, Path work) throws IOException {
      this.n = n;
      this.jar = jar;
      this.db = TestDatabase.create();
      this.dataDir = work.resolve("instance-" + n);
      BenchSupport.deleteTree(dataDir);
      Files.createDirectories(dataDir.resolve("tmp"));
      this.logFile = work.resolve("instance-" + n + ".log");
      this.port = BenchSupport.freePort();
    }

    Map<String, String> env() {
      Map<String, String> env = new LinkedHashMap<>();
      env.put("DATABASE_URL", db.databaseUrl());
      env.put("SHOTSTASH_HTTP_HOST", "127.0.0.1");
      env.put("SHOTSTASH_HTTP_PORT", Integer.toString(port));
      env.put("SHOTSTASH_DATA_DIR", dataDir.toString());
      env.put("XDG_CONFIG_HOME", dataDir.resolve("xdg").toString());
      // GitHub is out of reach here; seed-demo's GitHub facts are fresh, so the roster never probes.
      env.put("SHOTSTASH_GITHUB_API_URL", "http://127.0.0.1:9");
      return env;
    }

    void seed() throws Exception {
      long t0 = System.nanoTime();
      BenchSupport.Output out = BenchSupport.run(Duration.ofMinutes(20), env(), dataDir, "java",
          "-Djava.io.tmpdir=" + dataDir.resolve("tmp"), "-jar", jar.toString(), "seed-demo", "--members",
          Integer.toString(n));
      seedSeconds = (System.nanoTime() - t0) / 1e9;
      Matcher m = PASSWORD.matcher(out.all());
      if (out.exit() != 0 || !m.find()) {
        throw new IllegalStateException("seed-demo --members " + n + " failed (" + out.exit() + "):\n" + out.all());
      }
      adminPassword = m.group(1);
      repoBytes = treeBytes(dataDir.resolve("public.git"));
      BenchSupport.log("N = %,d: seed-demo took %.1f s; the data repository holds %,d KB", n, seedSeconds,
          repoBytes / 1024);
    }

    /** Starts {@code serve} and waits for {@code /ready}: the time from starting the process to its first 200. */
    void startAndTime() throws Exception {
      ProcessBuilder pb = new ProcessBuilder("java", "-Djava.io.tmpdir=" + dataDir.resolve("tmp"), "-jar",
          jar.toString(), "serve").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      pb.environment().putAll(env());
      long t0 = System.nanoTime();
      process = pb.start();
      long deadline = t0 + TimeUnit.SECONDS.toNanos(120);
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the app stopped at start; see " + logFile);
        }
        try {
          HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/ready"))
              .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() == 200) {
            double ms = (System.nanoTime() - t0) / 1e6;
            startupMillis.add(ms);
            loadedHow.add(lastLoadLine());
            BenchSupport.log("N = %,d: start-up to ready in %.0f ms (%s)", n, ms, loadedHow.get(loadedHow.size() - 1));
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
        Thread.sleep(10);
      }
      throw new IllegalStateException("the app was not ready after 120 s; see " + logFile);
    }

    /** The app's last "Public state loaded: ..." line, from "from" on. */
    String lastLoadLine() throws IOException {
      String how = "?";
      for (String line : Files.readAllLines(logFile)) {
        int at = line.indexOf("Public state loaded:");
        if (at >= 0) {
          int from = line.indexOf(" from ", at);
          how = from < 0 ? line.substring(at) : line.substring(from + 1);
        }
      }
      return how;
    }

    String base() {
      return "http://127.0.0.1:" + port;
    }

    void stop() throws InterruptedException {
      if (process != null) {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        process = null;
      }
    }

    /** Page 1 of the roster for several filters, one request after another (the app must be running). */
    void roster(int warmup, int count) throws Exception {
      HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create(base() + "/api/auth/login"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("login", "demo-admin")
              .put("password", adminPassword).encode()))
          .build(), HttpResponse.BodyHandlers.ofString());
      if (login.statusCode() != 200) {
        throw new IllegalStateException("login failed: " + login.statusCode() + " " + login.body());
      }
      String token = new JsonObject(login.body()).getJsonObject("data").getString("token");
      Map<String, String> filters = new LinkedHashMap<>();
      filters.put("no filter", null);
      filters.put("a common first name", "grace");
      filters.put("an email domain", "example.com");
      filters.put("a throwaway email domain", "mailinator");
      filters.put("a rare slug fragment", "zz");
      filters.put("nothing matches", "no-such-member-xyz");
      Map<String, HttpRequest> requests = new LinkedHashMap<>();
      for (Map.Entry<String, String> f : filters.entrySet()) {
        String path = "/api/admin/members" + (f.getValue() == null ? ""
            : "?q=" + URLEncoder.encode(f.getValue(), StandardCharsets.UTF_8));
        requests.put(f.getKey(), HttpRequest.newBuilder(URI.create(base() + path))
            .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build());
      }
      // warm-up over every filter first, so that the first filter measured is not the one the JIT learns on
      for (int i = 0; i < warmup; i++) {
        for (HttpRequest request : requests.values()) {
          HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() != 200) {
            throw new IllegalStateException("roster " + request.uri() + ": " + r.statusCode());
          }
        }
      }
      for (Map.Entry<String, String> f : filters.entrySet()) {
        HttpRequest request = requests.get(f.getKey());
        JsonObject body = new JsonObject(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
        long total = body.getJsonObject("metadata").getLong("totalItems");
        int rows = body.getJsonArray("data").size();
        double[] ms = new double[count];
        for (int i = 0; i < count; i++) {
          long t0 = System.nanoTime();
          HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
          ms[i] = (System.nanoTime() - t0) / 1e6;
          if (r.statusCode() != 200) {
            throw new IllegalStateException("roster " + request.uri() + ": " + r.statusCode());
          }
        }
        Arrays.sort(ms);
        Latency l = new Latency(f.getKey(), f.getValue(), total, rows, percentile(ms, 0.50), percentile(ms, 0.90),
            percentile(ms, 0.99), ms[ms.length - 1]);
        roster.add(l);
        BenchSupport.log("N = %,d: roster %s (%,d matches): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms", n, l.label(),
            total, l.p50(), l.p90(), l.p99());
      }
    }

    @Override
    public void close() {
      try {
        stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // still drop the database and the folder
      }
      db.close();
      BenchSupport.deleteTree(dataDir);
    }
  }

  static double percentile(double[] sorted, double p) {
    int i = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  static long treeBytes(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  // ------------------------------------------------------------------------------------ vote commits

  /** Time and commits of one mode at one size. */
  static final class Tally {
    long nanos;
    long commits;
    final List<Long> slices = new ArrayList<>();

    void add(long elapsed, int count) {
      nanos += elapsed;
      commits += count;
      slices.add(elapsed);
    }

    double perSecond() {
      return commits == 0 ? Double.NaN : commits / (nanos / 1e9);
    }
  }

  /** How many distinct members the votes go to, at every size. */
  static final int TARGETS = 900;

  /** The app's git writer and the raw loop on one instance's repository and database. */
  static final class VoteScenario implements AutoCloseable {
    final Instance instance;
    final TomlCodec codec = new TomlCodec();
    final Vertx vertx = Vertx.vertx();
    final Attribution attribution;
    final DataRepository repository;
    final PublicStateLoader loader;
    final PublicStateHolder holder;
    final Pool pool;
    final GitTreeWriter git;
    final PublicDataClient writes;
    final Actor.Member staff;
    final List<Person> targets;
    final Tally raw = new Tally();
    final Tally writer = new Tally();
    int next;
    long loadMillis;

    VoteScenario(Instance instance) {
      this.instance = instance;
      Config config = Config.load(Map.of("DATABASE_URL", instance.db.databaseUrl(), "SHOTSTASH_DATA_DIR",
          instance.dataDir.toString()));
      attribution = new Attribution(config.noreplyDomain());
      repository = DataRepository.openOrInit(config.dataRepo(), config.dataBranch(), Sheet.templates(),
          attribution.ident(Actor.SYSTEM, Instant.now()));
      loader = new PublicStateLoader(repository, codec);
      long t0 = System.nanoTime();
      holder = new PublicStateHolder(loader.loadHead());
      loadMillis = (System.nanoTime() - t0) / 1_000_000;
      pool = Database.pool(vertx, config);
      // repacks and their merges as in the app during the measurement; the full gc is timed apart (timeFullGc)
      git = new GitTreeWriter(repository.repository(), repository.branch(), config.repackEvery(), false);
      vertx.deployVerticle(new GitWriterVerticle(pool, holder, loader, git, codec, attribution, WriteRules.all(),
          "bench-" + instance.n)).await();
      writes = new PublicDataClient(vertx);
      Person admin = holder.current().personBySlug("demo-admin").orElseThrow();
      staff = Actor.member(admin, "bench-session");
      List<Person> members = new ArrayList<>(holder.current().all(Sheet.PEOPLE, Person.class).stream()
          .filter(p -> !p.isDeactivated() && !p.isAgentAccount() && !p.id().equals(admin.id())).toList());
      Collections.shuffle(members, new Random(instance.n));
      // the same number of distinct members voted on at every size: each first vote on a member adds
      // an entry to the person-evaluations tree, so more distinct targets would grow that tree (and
      // slow every commit) with the number of votes, not with the number of members
      targets = List.copyOf(members.subList(0, Math.min(TARGETS, members.size())));
    }

    Person nextTarget() {
      return targets.get(next++ % targets.size());
    }

    WriteCommand vote(Person target, int number) {
      return new WriteCommand(ModerationWrites.VOTE, staff, "POST", "/api/admin/members/" + target.slug() + "/vote",
          new JsonObject().put("slug", target.slug()).put("verdict", "legit")
              .put("reasoning", "Looks like a real member (bench vote " + number + ").").put("flags", new JsonArray()));
    }

    /** The raw JGit path-only commit of the record the vote rule writes, with the message it writes. */
    void rawSlice(Tally tally, int commits, int firstNumber) {
      ObjectId head = git.head();
      long start = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        Person target = nextTarget();
        WriteCommand cmd = vote(target, firstNumber + i);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        String reasoning = cmd.params().getString("reasoning");
        PersonEvaluation e = new PersonEvaluation(target.slug(), "human-" + staff.slug(), "legit", reasoning,
            List.of("manual-override"), 1.0, now);
        String message = Attribution.actorTrailers(Attribution.message(cmd, ModerationWrites.VOTE, "person",
            target.id(), target.slug()).body("legit: " + reasoning), staff).build().render();
        CommitResult result = git.commit(head, List.of(PathChange.put(
            Sheet.PERSON_EVALUATIONS.path(RecordKeys.evaluation(e)), codec.encode(Sheet.PERSON_EVALUATIONS, e))),
            attribution.ident(staff, now), message);
        if (!(result instanceof CommitResult.Committed committed)) {
          throw new IllegalStateException("raw commit: " + result);
        }
        head = committed.commit();
        git.maybeRepack();
      }
      tally.add(System.nanoTime() - start, commits);
      takeInRawCommits();
    }

    /**
     * The writer learns of the raw loop's commits as it would take in a push by hand: the branch
     * fence records the branch's head, and the state catches up. Not measured.
     */
    void takeInRawCommits() {
      pool.preparedQuery("UPDATE public_data_head SET commit_id = $1").execute(Tuple.of(git.head().name())).await();
      holder.set(loader.catchUp(holder.current()));
    }

    /** Vote commands through the git writer, {@code inFlight} at a time, until {@code commits} are replied. */
    void writerSlice(Tally tally, int commits, int firstNumber, int inFlight) throws InterruptedException {
      Semaphore permits = new Semaphore(inFlight);
      CountDownLatch done = new CountDownLatch(commits);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      long start = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        permits.acquire();
        writes.write(vote(nextTarget(), firstNumber + i)).onComplete(ar -> {
          if (ar.failed()) {
            failure.compareAndSet(null, ar.cause());
          }
          permits.release();
          done.countDown();
        });
      }
      if (!done.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the writer did not answer " + commits + " votes in 10 minutes");
      }
      // the writer repacks on its worker queue after replying: wait for it here (GitTreeWriter's lock),
      // so that this slice pays for its own repack, not the raw slice after it
      git.maybeRepack();
      tally.add(System.nanoTime() - start, commits);
      if (failure.get() != null) {
        throw new IllegalStateException("a vote failed", failure.get());
      }
    }

    /** The full gc the app makes once the packs since the last one hold as many objects as it packed, in ms. */
    long fullGcMillis;
    /** Commits between two full gcs at this size: the objects the gc packed / the objects a commit adds. */
    long fullGcEveryCommits;

    /** {@code repacked}: the commits the measurement's repacks packed since the last full gc. */
    void timeFullGc(long repacked) {
      double objectsPerCommit = git.objectsPackedSinceFullGc() / (double) Math.max(1, repacked);
      long t0 = System.nanoTime();
      git.repackNow();
      fullGcMillis = (System.nanoTime() - t0) / 1_000_000;
      fullGcEveryCommits = Math.max(1, Math.round(git.objectsInFullGc() / objectsPerCommit));
    }

    long commitsOnBranch() throws IOException {
      try (var walk = new org.eclipse.jgit.revwalk.RevWalk(repository.repository())) {
        walk.markStart(walk.parseCommit(git.head()));
        long count = 0;
        for (var ignored : walk) {
          count++;
        }
        return count;
      }
    }

    @Override
    public void close() {
      vertx.close().await();
      git.close();
      repository.close();
    }
  }

  /** Both modes at every size, interleaved in slices, round after round. */
  static final class VoteRun {
    final List<VoteScenario> scenarios = new ArrayList<>();
    final int commits;
    final int slice;
    final int warmup;
    final int inFlight;
    final List<Double> busy = new ArrayList<>();
    int number;

    VoteRun(List<Instance> instances, int commits, int slice, int warmup, int inFlight) {
      for (Instance i : instances) {
        scenarios.add(BenchSupport.open(new VoteScenario(i)));
      }
      this.commits = commits;
      this.slice = slice;
      this.warmup = warmup;
      this.inFlight = inFlight;
    }

    void run() throws Exception {
      for (VoteScenario s : scenarios) {
        s.rawSlice(new Tally(), warmup, number);
        number += warmup;
        s.writerSlice(new Tally(), warmup, number, inFlight);
        number += warmup;
        s.git.repackNow(); // from here each repack packs exactly repackEvery commits, as in the app
        s.takeInRawCommits();
      }
      int rounds = commits / slice;
      for (int round = 1; round <= rounds; round++) {
        long[] cpu0 = BenchSupport.Machine.cpuTicks();
        StringBuilder line = new StringBuilder("round " + round + "/" + rounds + ":");
        for (VoteScenario s : scenarios) {
          long raw0 = s.raw.nanos;
          s.rawSlice(s.raw, slice, number);
          number += slice;
          long w0 = s.writer.nanos;
          s.writerSlice(s.writer, slice, number, inFlight);
          number += slice;
          line.append(String.format(Locale.ROOT, " %,d raw %.0f/s, writer %.0f/s;", s.instance.n,
              slice / ((s.raw.nanos - raw0) / 1e9), slice / ((s.writer.nanos - w0) / 1e9)));
        }
        long[] cpu1 = BenchSupport.Machine.cpuTicks();
        busy.add((double) ((cpu1[0] - cpu1[1]) - (cpu0[0] - cpu0[1])) / Math.max(1, cpu1[0] - cpu0[0]));
        BenchSupport.log("%s", line);
      }
      for (VoteScenario s : scenarios) {
        long expected = s.raw.commits + s.writer.commits;
        s.timeFullGc(expected / GitTreeWriter.DEFAULT_REPACK_EVERY * GitTreeWriter.DEFAULT_REPACK_EVERY);
        BenchSupport.log("N = %,d: %,d commits on the branch after the run (%,d measured)", s.instance.n,
            s.commitsOnBranch(), expected);
      }
    }
  }

  // ------------------------------------------------------------------------------------ the report

  static String startupSection(BenchSupport.Machine machine, String command, List<Instance> instances) {
    StringBuilder md = new StringBuilder(STARTUP_SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s` (`ModerationBench`, see `bench/README.md`).%n%n",
        machine.date(), command));
    md.append(machine.markdown()).append('\n');
    md.append("Each size is a fresh instance: its own database and data folder, filled by `java -jar shotstash.jar"
        + " seed-demo --members N` (members, projects, memberships, updates, buzz, roles, interest, tags, private"
        + " profiles and sessions). Then `java -jar shotstash.jar serve` (default settings) is started and timed from"
        + " starting the process (JVM start included) to the first `200` of `GET /ready` (PostgreSQL answers,"
        + " migrations applied, the whole public state loaded), polled every 10 ms; stopped (SIGTERM), and started"
        + " again. seed-demo ends by writing the state snapshot (`public-state.snapshot`, docs/public-data.md), so"
        + " the first start reads it; before the second start the snapshot is deleted, so that start reads every file"
        + " of the repository (and writes the snapshot again); every later start is a restart from the snapshot.\n\n");
    md.append("| members | seed-demo (s) | data repository (MB) | first start after seed-demo (ms) | a start with no"
        + " snapshot (ms) | restarts (ms) | median of the restarts (ms) |\n");
    md.append("|---:|---:|---:|---:|---:|---|---:|\n");
    for (Instance i : instances) {
      List<Double> later = i.startupMillis.subList(2, i.startupMillis.size());
      md.append(String.format(Locale.ROOT, "| %,d | %.1f | %.1f | **%,.0f** | %,.0f | %s | **%,.0f** |%n", i.n,
          i.seedSeconds, i.repoBytes / 1e6, i.startupMillis.get(0), i.startupMillis.get(1), String.join(", ", later
              .stream().map(v -> String.format(Locale.ROOT, "%,.0f", v)).toList()),
          BenchSupport.medianOf(later)));
    }
    md.append("\nHow each start loaded the state (the app's log), in order:\n\n");
    for (Instance i : instances) {
      md.append(String.format(Locale.ROOT, "- %,d members: %s%n", i.n, String.join("; ", i.loadedHow)));
    }
    Instance big = instances.get(instances.size() - 1);
    List<Double> later = big.startupMillis.subList(2, big.startupMillis.size());
    double median = BenchSupport.medianOf(later);
    double first = big.startupMillis.get(0);
    md.append(String.format(Locale.ROOT, "%nGoal (seed-demo --members %,d, then start-up to ready under 5 s): **%s**"
        + " (the first start after seed-demo %,.0f ms; restarts: median %,.0f ms of %d). Without a snapshot, reading"
        + " all %.1f MB of records, a start took %,.0f ms.%n", big.n, first < 5000 && median < 5000 ? "met" : "not met",
        first, median, later.size(), big.repoBytes / 1e6, big.startupMillis.get(1)));
    return md.toString();
  }

  static String moderationSection(BenchSupport.Machine machine, String command, List<Instance> instances,
      VoteRun votes) {
    StringBuilder md = new StringBuilder(MODERATION_SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s` (`ModerationBench`, see `bench/README.md`), on the"
        + " instances of the section above.%n%n", machine.date(), command));
    md.append(machine.markdown()).append('\n');
    md.append("### Roster: `GET /api/admin/members`, page 1\n\n");
    md.append("The app started with `java -jar` (defaults); staff (the seeded administrator, bearer token) read page 1"
        + " (50 rows, newest first) with each filter, one request after another over one keep-alive connection"
        + " (Java's HttpClient in the benchmark's JVM, on the same cores), after `rosterWarmup` (default 100) warm-up rounds over all filters. The time is the"
        + " whole HTTP request as the client sees it.\n\n");
    md.append("| members | filter | `q` | matches | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) |\n");
    md.append("|---:|---|---|---:|---:|---:|---:|---:|\n");
    for (Instance i : instances) {
      for (Latency l : i.roster) {
        md.append(
            String.format(Locale.ROOT, "| %,d | %s | %s | %,d | **%.2f** | %.2f | %.2f | %.2f |%n", i.n, l.label(),
                l.query() == null ? "—" : "`" + l.query() + "`", l.totalItems(), l.p50(), l.p90(), l.p99(), l.max()));
      }
    }
    Instance big = instances.get(instances.size() - 1);
    double worstFiltered = big.roster.stream().filter(l -> l.query() != null).mapToDouble(Latency::p50).max()
        .orElse(Double.NaN);
    md.append(String.format(Locale.ROOT, "%nGoal (page 1 with a `q` filter at %,d members, p50 under 10 ms): **%s**"
        + " (the slowest filter's p50: %.2f ms).%n%n", big.n, worstFiltered < 10 ? "met" : "not met", worstFiltered));

    md.append("### Vote commits per second\n\n");
    md.append(String.format(Locale.ROOT, "After the app was stopped, the app's own `GitWriterVerticle` with every write"
        + " rule of the app, on each instance's data repository and database, took staff votes (`moderation.vote`:"
        + " `legit` on an active member, so each commit writes one `person-evaluations/<slug>/human-demo-admin.toml`"
        + " record, with the rule's checks, its commit message and trailers, the state update and the"
        + " `publicdata.changed` publish) with %d in flight, round-robin over the same number of distinct active"
        + " members at every size (" + TARGETS
        + ", so that the `person-evaluations` tree is as large at both). Beside it, the raw loop commits the same record with"
        + " the same message through the same path-only JGit plumbing (`GitTreeWriter.commit`) on the same"
        + " repository. Both modes at both sizes are interleaved in slices of %d commits, %d rounds, after %d"
        + " warm-up commits each; repacking (every 500 commits, the objects of those commits into one new pack)"
        + " runs as in the app (merges included) and falls evenly on the modes: the writer repacks on its worker"
        + " queue right after replying, and its slice ends only once that repack is done. The full JGit gc the app"
        + " makes once the packs since the last one hold as many objects as it packed is timed apart, after the"
        + " rounds, and spread over the commits between two of them (its objects / the objects a commit adds). Votes are measured in-process: the HTTP route allows one account 30 writes a minute,"
        + " which would measure that limit, not the writer.%n%n", votes.inFlight, votes.slice,
        votes.commits / votes.slice,
        votes.warmup));
    md.append("| members | raw JGit (commits/s) | git writer, vote rule (commits/s) | writer / raw | full gc (s) |"
        + " full gc per commit (ms) | state load (ms) |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (VoteScenario s : votes.scenarios) {
      md.append(String.format(Locale.ROOT, "| %,d | %.0f | **%.0f** | %.2f × | %.2f | %.2f | %,d |%n", s.instance.n,
          s.raw.perSecond(), s.writer.perSecond(), s.writer.perSecond() / s.raw.perSecond(), s.fullGcMillis / 1e3,
          s.fullGcMillis / (double) s.fullGcEveryCommits, s.loadMillis));
    }
    double busy = BenchSupport.medianOf(votes.busy);
    md.append(String.format(Locale.ROOT, "%nAll cores were %.0f%% busy during a median round (this run included).%n%n",
        100 * busy));
    VoteScenario small = votes.scenarios.get(0);
    VoteScenario large = votes.scenarios.get(votes.scenarios.size() - 1);
    boolean half = votes.scenarios.stream().allMatch(s -> s.writer.perSecond() >= 0.5 * s.raw.perSecond());
    double flat = large.writer.perSecond() / small.writer.perSecond();
    double rawFlat = large.raw.perSecond() / small.raw.perSecond();
    md.append(String.format(Locale.ROOT, "Goals: at least half the raw rate at every size: **%s**; flat from %,d to %,d"
        + " members (here: the rate at %,d at least 0.9 × the rate at %,d): **%s** (writer %.2f ×, raw %.2f ×).%n",
        half ? "met" : "not met", small.instance.n, large.instance.n, large.instance.n, small.instance.n,
        flat >= 0.9 ? "met" : "not met", flat, rawFlat));
    return md.toString();
  }
}
