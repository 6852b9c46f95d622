package io.shotstash.bench;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.GitWriterVerticle;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Git-writer throughput: commits per second for one small record per commit, at 1,000 and 20,000
 * people, beside a raw JGit path-only commit loop on the same repository in the same run
 * (TESTING.md → Benchmarks; bench/README.md says how to run it, bench/git-writer.sh runs it).
 *
 * <p>For each N, a fresh bare repository ({@link DataRepository#openOrInit}) is seeded in one
 * commit with N people and one evaluation for each of {@value #EVALUATED} evaluated people (the
 * same number at every N, so {@code person-evaluations/} has the same size and only the number of
 * people differs), and gets its own PostgreSQL database and its own {@link GitWriterVerticle} (in
 * its own Vert.x). Each commit writes {@code person-evaluations/<slug>/human-bench.toml} for a
 * different person, in four modes:
 * <ul>
 *   <li>raw: {@link GitTreeWriter#commit} in a loop (the path-only splicing plumbing, i.e. the raw
 *       JGit limit), with {@link GitTreeWriter#maybeRepack()} after each commit;
 *   <li>writer, pipelined: the writer with a bench rule (a PersonEvaluation put, private step
 *       {@code SELECT 1}), {@code inFlight} commands outstanding on the event bus at all times;
 *   <li>writer, sequential: the same, each command sent after the previous reply (latency-bound);
 *   <li>writer, pipelined, with a private {@code INSERT} (a durable PostgreSQL COMMIT with a WAL
 *       flush, as for a rule that writes private rows).
 * </ul>
 * The machine these run on is shared, and other work comes and goes within seconds. So the modes
 * and both N are interleaved in slices of {@code slice} commits (1,000 raw, 1,000 pipelined, ...,
 * 20,000 raw, ...), round after round until each has {@code commits}: load from elsewhere hits
 * every figure alike, and the ratios hold even when the absolute rates do not. Repacking runs as in
 * the app: the raw loop commits through the writer's own GitTreeWriter (while the writer is idle),
 * so one counter triggers a repack (of the commits since the last) after every {@code SHOTSTASH_REPACK_EVERY} (500)
 * commits, each packing exactly 500 commits, inside the slice that made the 500th; with the
 * default sizes the repacks fall evenly on the modes (one per 500 commits each). The PostgreSQL
 * transaction alone (same statements, same pool) is timed as well. Then the same, raw and writer
 * pipelined, for a record in {@code people/}, the folder of N entries.
 *
 * <p>Options ({@code --name=value}): {@code sizes=1000,20000 commits=1000 slice=100 warmup=200
 * peopleCommits=500 (0: skip people/) peopleWarmup=50 inFlight=16 out=docs/benchmarks.md
 * command=<text for the report>}; {@code out=-} prints only.
 */
public final class GitWriterBench {
  static final String BRANCH = "published";
  static final String SECTION = "## Git writer: commits per second";
  /** How many people have evaluations, at every N. */
  static final int EVALUATED = 1_000;
  static final Actor.Member BENCHER = new Actor.Member(Ids.uuid7(), "bench", "Bench Marker", AccountLevel.STAFF, null);
  static final Attribution ATTRIBUTION = new Attribution("codeforphilly.org");

  /** What a slice does. */
  enum Mode {
    RAW("raw JGit (GitTreeWriter.commit)"),
    PIPELINED("writer pipelined"),
    SEQUENTIAL("writer sequential"),
    PIPELINED_INSERT("writer pipelined, private INSERT"),
    PEOPLE_RAW("people/ raw JGit"),
    PEOPLE_PIPELINED("people/ writer pipelined");

    static final List<Mode> SMALL_FOLDER = List.of(RAW, PIPELINED, SEQUENTIAL, PIPELINED_INSERT);
    static final List<Mode> PEOPLE = List.of(PEOPLE_RAW, PEOPLE_PIPELINED);

    final String title;

    Mode(String title) {
      this.title = title;
    }
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Machine machine = Machine.probe();
    System.out.println(machine.describe());
    List<Scenario> scenarios = new ArrayList<>();
    List<Scenario.Result> results = new ArrayList<>();
    Load smallLoad;
    Load peopleLoad = null;
    try {
      for (int n : options.sizes()) {
        Scenario s = new Scenario(n, options);
        scenarios.add(s);
        s.setUp();
      }
      warmUp(scenarios, Mode.RAW, Mode.PIPELINED, options.warmup());
      smallLoad = interleave(scenarios, Mode.SMALL_FOLDER, options.commits(), options.slice());
      for (Scenario s : scenarios) {
        s.timeFullGc(); // after the small-folder commits, before the people/ part adds its big trees
        s.postgresOnly();
      }
      if (options.peopleCommits() > 0) {
        warmUp(scenarios, Mode.PEOPLE_RAW, Mode.PEOPLE_PIPELINED, options.peopleWarmup());
        peopleLoad = interleave(scenarios, Mode.PEOPLE, options.peopleCommits(), options.slice());
      }
      for (Scenario s : scenarios) {
        results.add(s.finish());
      }
    } finally {
      for (Scenario s : scenarios) {
        s.close();
      }
    }
    String report = Report.section(options, machine, results, smallLoad, peopleLoad);
    System.out.println();
    System.out.println(report);
    if (!options.out().toString().equals("-")) {
      BenchSupport.replaceSection(options.out(), SECTION, report);
      System.out.println("Wrote the section '" + SECTION + "' of " + options.out());
    }
    System.exit(0); // Vert.x and JGit leave non-daemon threads behind
  }

  /**
   * Warms each scenario up in the raw mode and its pipelined peer, then repacks it so that the
   * timed commits start with the repack counter at zero.
   */
  static void warmUp(List<Scenario> scenarios, Mode raw, Mode pipelined, int commits) throws Exception {
    for (Scenario s : scenarios) {
      s.warmUp(raw, commits);
      s.warmUp(pipelined, commits);
      s.resetRepackCounters();
    }
  }

  /** Rounds of one slice per scenario and mode until each has {@code commits}; returns the load from elsewhere. */
  static Load interleave(List<Scenario> scenarios, List<Mode> modes, int commits, int slice) throws Exception {
    int rounds = (commits + slice - 1) / slice;
    Load load = new Load();
    for (int round = 1; round <= rounds; round++) {
      load.roundStart();
      for (Scenario s : scenarios) {
        for (Mode mode : modes) {
          s.slice(mode, Math.min(slice, commits - (round - 1) * slice));
        }
      }
      load.roundEnd();
      if (round % 5 == 0 || round == rounds) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d/%d:", round, rounds));
        for (Scenario s : scenarios) {
          for (Mode mode : modes) {
            line.append(String.format(Locale.ROOT, " %s %s %.0f/s;", Report.shortCount(s.n),
                mode.name().toLowerCase(Locale.ROOT),
                s.tallies.get(mode).perSecond()));
          }
        }
        System.out
            .println(line + String.format(Locale.ROOT, " other processes %.0f%% of the cores", 100 * load.lastRound));
      }
    }
    return load;
  }

  // ------------------------------------------------------------------------------------ options

  record Options(List<Integer> sizes, int commits, int slice, int warmup, int peopleCommits, int peopleWarmup,
      int inFlight, int repackEvery, Path out, String command) {

    static Options parse(String[] args) {
      Map<String, String> given = new HashMap<>();
      for (String arg : args) {
        if (!arg.startsWith("--") || !arg.contains("=")) {
          throw new IllegalArgumentException("expected --name=value, got " + arg);
        }
        given.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      }
      int repackEvery = Config.load(Map.of()).repackEvery(); // the app's SHOTSTASH_REPACK_EVERY default
      List<Integer> sizes = new ArrayList<>();
      for (String s : given.getOrDefault("sizes", "1000,20000").split(",")) {
        sizes.add(Integer.parseInt(s.strip()));
      }
      Options o = new Options(sizes, integer(given, "commits", 2 * repackEvery), integer(given, "slice", 100),
          integer(given, "warmup", 200), integer(given, "peopleCommits", repackEvery),
          integer(given, "peopleWarmup", 50), integer(given, "inFlight", 16), repackEvery,
          Path.of(given.getOrDefault("out", "docs/benchmarks.md")),
          given.getOrDefault("command", "java io.shotstash.bench.GitWriterBench " + String.join(" ", args)));
      given.keySet().removeAll(List.of("sizes", "commits", "slice", "warmup", "peopleCommits", "peopleWarmup",
          "inFlight", "out", "command"));
      if (!given.isEmpty()) {
        throw new IllegalArgumentException("unknown options " + given.keySet());
      }
      if (o.commits() % repackEvery != 0 || repackEvery % o.slice() != 0) {
        System.out.println("note: commits is not a multiple of " + repackEvery + " or slice does not divide it:"
            + " the modes will not all pay the same number of repacks");
      }
      return o;
    }

    private static int integer(Map<String, String> given, String name, int fallback) {
      return given.containsKey(name) ? Integer.parseInt(given.get(name)) : fallback;
    }
  }

  // ------------------------------------------------------------------------------------ machine facts

  record Machine(String date, int cores, String cpu, String memory, String java, String jgit, String postgres,
      Map<String, String> settings, double fdatasyncPerSecond, double busyBefore) {

    static Machine probe() throws Exception {
      String cpu = BenchSupport.Machine.cpuModel();
      String memory = BenchSupport.Machine.memoryTotal();
      String java = System.getProperty("bench.javaVersion");
      if (java == null || java.isBlank()) {
        java = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
      }
      String jgit = String.valueOf(org.eclipse.jgit.lib.Repository.class.getPackage().getImplementationVersion());
      String postgres;
      Map<String, String> settings = new LinkedHashMap<>();
      try (TestDatabase db = TestDatabase.create();
          java.sql.Connection c = Database.connect(db.url());
          Statement s = c.createStatement()) {
        try (ResultSet rs = s.executeQuery("SELECT version()")) {
          rs.next();
          postgres = rs.getString(1);
        }
        for (String name : List.of("fsync", "synchronous_commit", "wal_sync_method", "shared_buffers")) {
          try (ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            settings.put(name, rs.getString(1));
          }
        }
      }
      double busy = BenchSupport.Machine.busyFraction(2_000);
      double fdatasync = BenchSupport.Machine.fdatasyncRate(Path.of(System.getProperty("java.io.tmpdir")));
      return new Machine(LocalDate.now(ZoneOffset.UTC).toString(), Runtime.getRuntime().availableProcessors(), cpu,
          memory, java, jgit, postgres, settings, fdatasync, busy);
    }

    String describe() {
      return String.format(Locale.ROOT, "Machine: %d cores (%s), %s RAM; %s; JGit %s; %s; %s; fdatasync %,.0f/s;"
          + " busy before the run (other work): %.0f%%",
          cores, cpu, memory, java, jgit, postgres.replaceAll(" on .*", ""), settings, fdatasyncPerSecond,
          100 * busyBefore);
    }
  }

  /**
   * CPU that other processes used while we measured, as a share of all cores: busy jiffies from
   * /proc/stat minus this JVM's CPU time. PostgreSQL's backends count as "other" too; its share of
   * the writer's work is small (see the PostgreSQL-alone figures).
   */
  static final class Load {
    private long busyTicks;
    private long totalTicks;
    private long ownNanos;
    private long[] ticksAtStart;
    private long ownAtStart;
    double lastRound;
    double maxRound;

    void roundStart() {
      ticksAtStart = BenchSupport.Machine.cpuTicks();
      ownAtStart = ownCpuNanos();
    }

    void roundEnd() {
      long[] t = BenchSupport.Machine.cpuTicks();
      long busy = (t[0] - t[1]) - (ticksAtStart[0] - ticksAtStart[1]);
      long total = t[0] - ticksAtStart[0];
      long own = ownCpuNanos() - ownAtStart;
      busyTicks += busy;
      totalTicks += total;
      ownNanos += own;
      lastRound = share(busy, total, own);
      maxRound = Math.max(maxRound, lastRound);
    }

    double average() {
      return share(busyTicks, totalTicks, ownNanos);
    }

    /** Jiffies are 10 ms (USER_HZ = 100) summed over all cores. */
    private static double share(long busy, long total, long ownNanos) {
      return total <= 0 ? Double.NaN : Math.max(0, busy * 10e6 - ownNanos) / (total * 10e6);
    }

    static long ownCpuNanos() {
      return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
    }
  }

  // ------------------------------------------------------------------------------------ measurements

  /** Commits made and time spent in one mode, summed over its slices. */
  static final class Tally {
    final Mode mode;
    long commits;
    long nanos;
    int repacks;
    long repackNanos;
    /** Writer modes: per-command phase sums (see BenchRules.MARKS), over the commands that reported them. */
    long phased;
    long toPlan;
    long planToPrivateDone;
    long privateDoneToReply;
    long replyToClient;
    /** The time of each slice, in order: round i of one N pairs with round i of another. */
    final List<Long> sliceNanos = new ArrayList<>();
    /** Pipelined: from the writer building one reply to its rule running for the next command. */
    long betweenCount;
    long between;
    private int previousNumber;
    private long previousReplyMark;

    Tally(Mode mode) {
      this.mode = mode;
    }

    void slice(long elapsed) {
      nanos += elapsed;
      sliceNanos.add(elapsed);
    }

    double perSecond() {
      return commits == 0 ? Double.NaN : commits / (nanos / 1e9);
    }

    double msPerCommit() {
      return commits == 0 ? Double.NaN : nanos / 1e6 / commits;
    }

    /** Raw modes: the time of the commits without the repacks inside the loop. */
    double commitMsWithoutRepack() {
      return commits == 0 ? Double.NaN : (nanos - repackNanos) / 1e6 / commits;
    }

    double repackShareMs() {
      return commits == 0 ? Double.NaN : repackNanos / 1e6 / commits;
    }

    synchronized void add(int number, long sent, long received, long[] marks) {
      if (marks == null || marks[2] == 0) {
        return;
      }
      if (number == previousNumber + 1 && previousReplyMark != 0) {
        betweenCount++;
        between += marks[0] - previousReplyMark;
      }
      previousNumber = number;
      previousReplyMark = marks[2];
      phased++;
      toPlan += marks[0] - sent;
      planToPrivateDone += marks[1] - marks[0];
      privateDoneToReply += marks[2] - marks[1];
      replyToClient += received - marks[2];
    }

    double phaseMs(long sum) {
      return phased == 0 ? Double.NaN : sum / 1e6 / phased;
    }

    double betweenMs() {
      return betweenCount == 0 ? Double.NaN : between / 1e6 / betweenCount;
    }

    @Override
    public String toString() {
      String repack = repacks == 0 ? "" : String.format(Locale.ROOT, ", %d repacks%s", repacks,
          repackNanos == 0 ? "" : String.format(Locale.ROOT, " taking %.2f s", repackNanos / 1e9));
      String line = String.format(Locale.ROOT, "%-34s %6d commits in %7.2f s = %8.1f /s (%.2f ms each%s)",
          mode.title, commits, nanos / 1e9, perSecond(), msPerCommit(), repack);
      if (phased == 0) {
        return line;
      }
      return line + String.format(Locale.ROOT, "%n    per command: send->rule %.2f ms, rule+private step %.2f ms,"
          + " git commit+PG COMMIT+state %.2f ms, reply->client %.2f ms; reply built->next rule %.2f ms",
          phaseMs(toPlan), phaseMs(planToPrivateDone), phaseMs(privateDoneToReply), phaseMs(replyToClient),
          betweenMs());
    }
  }

  /** One N: a repository, a database, a writer in its own Vert.x, and every measurement on them. */
  static final class Scenario implements AutoCloseable {
    final int n;
    final Options options;
    final TomlCodec codec = new TomlCodec();
    final Path dir;
    final DataRepository repository;
    final List<String> targets = new ArrayList<>();
    final Map<String, Person> people = new HashMap<>();
    final Map<Mode, Tally> tallies = new EnumMap<>(Mode.class);
    int nextTarget;
    int sequence;
    long expectedCommits;
    long seedMillis;
    long loadMillis;
    /** Mirrors the GitTreeWriter's repack counter, to tell which slice a repack fell in. */
    int sinceRepack;
    Tally pgSelect;
    Tally pgInsert;
    TestDatabase db;
    Vertx vertx;
    Pool pool;
    /** The writer's GitTreeWriter; the raw loop commits through it too, so there is one repack counter. */
    GitTreeWriter writerGit;
    PublicStateHolder holder;
    PublicStateLoader loader;
    PublicDataClient writes;

    Scenario(int n, Options options) throws IOException {
      this.n = n;
      this.options = options;
      this.dir = Files.createTempDirectory("git-writer-bench-" + n + "-");
      this.repository = DataRepository.openOrInit(dir.resolve("public.git"), BRANCH, Sheet.templates(),
          ATTRIBUTION.ident(Actor.SYSTEM, Instant.now()));
      this.expectedCommits = 1; // the initial .gitsheets commit
      for (Mode mode : Mode.values()) {
        tallies.put(mode, new Tally(mode));
      }
    }

    record Result(int n, long seedMillis, long loadMillis, Map<Mode, Tally> tallies, Tally pgSelect, Tally pgInsert,
        long repoBytes, long looseObjects, int packs, int personTreeKb, int evaluationTreeKb, long fullGcMillis,
        long fullGcEveryCommits, long fullGcObjects) {
      Tally get(Mode mode) {
        return tallies.get(mode);
      }

      /** The full gc's time spread over the commits the policy lets pass between two of them. */
      double fullGcShareMs() {
        return fullGcMillis / (double) fullGcEveryCommits;
      }
    }

    // ---- setting up

    void setUp() {
      seedMillis = seed();
      long t0 = System.nanoTime();
      loader = new PublicStateLoader(repository, codec);
      holder = new PublicStateHolder(loader.loadHead());
      loadMillis = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf(Locale.ROOT, "N = %,d: seeded %,d people + %,d evaluations in one commit in %d ms; loaded the"
          + " state in %d ms%n", n, n, targets.size(), seedMillis, loadMillis);
      db = TestDatabase.create();
      db.migrate();
      db.execute("CREATE TABLE bench_private (id bigserial PRIMARY KEY, person_slug text NOT NULL, "
          + "note text, created_at timestamptz NOT NULL DEFAULT now())");
      vertx = Vertx.vertx();
      Config config = Config.load(Map.of("DATABASE_URL", db.databaseUrl(), "SHOTSTASH_DB_POOL_SIZE", "4"));
      pool = Database.pool(vertx, config);
      // repacks and their merges as in the app during the measurement; the full gc they lead to is timed apart
      writerGit = new GitTreeWriter(repository.repository(), BRANCH, config.repackEvery(), false);
      Map<String, WriteHandler> handlers = new HashMap<>();
      for (WriteHandler h : BenchRules.all()) {
        handlers.put(h.action(), h);
      }
      vertx.deployVerticle(new GitWriterVerticle(pool, holder, loader, writerGit, codec, ATTRIBUTION, handlers,
          "bench-node-" + n)).await();
      writes = new PublicDataClient(vertx);
    }

    /** N people and EVALUATED evaluations, in one commit written as a pack (GitTreeWriter's bulk path). */
    long seed() {
      Random random = new Random(n);
      List<PathChange> changes = new ArrayList<>(n + EVALUATED);
      List<String> slugs = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        Person p = Seeds.person(random, i);
        people.put(p.slug(), p);
        slugs.add(p.slug());
        changes.add(PathChange.put(Sheet.PEOPLE.path(p.slug()), codec.encode(Sheet.PEOPLE, p)));
      }
      int stride = Math.max(1, n / EVALUATED);
      for (int i = 0; i < n && targets.size() < EVALUATED; i += stride) {
        String slug = slugs.get(i);
        targets.add(slug);
        PersonEvaluation e = new PersonEvaluation(slug, "agent-screener", random.nextInt(10) == 0 ? "spam" : "legit",
            "Profile and activity look " + (random.nextBoolean() ? "ordinary." : "like a real member."),
            List.of(), 0.5 + random.nextInt(50) / 100.0, Instant.parse("2025-06-01T00:00:00Z").plusSeconds(i));
        changes.add(PathChange.put(Sheet.PERSON_EVALUATIONS.path(RecordKeys.evaluation(e)),
            codec.encode(Sheet.PERSON_EVALUATIONS, e)));
      }
      long t0 = System.nanoTime();
      try (GitTreeWriter seeder = new GitTreeWriter(repository.repository(), BRANCH)) {
        CommitResult result = seeder.commit(repository.head(), changes,
            ATTRIBUTION.ident(Actor.SYSTEM, Instant.now()), "system: import " + n + " people\n");
        if (!(result instanceof CommitResult.Committed)) {
          throw new IllegalStateException("seed commit: " + result);
        }
      }
      expectedCommits++;
      return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Commits in {@code mode} that are not measured (JIT, connection pool, caches). */
    void warmUp(Mode mode, int commits) throws Exception {
      runSlice(new Tally(mode), commits);
    }

    /**
     * Repacks now (not measured) so that the repack counter starts at zero: from here on, the slice
     * that makes the 500th, 1000th, ... commit pays for the repack, and each repack packs exactly
     * 500 commits, as in the app.
     */
    void resetRepackCounters() {
      writerGit.repackNow();
      sinceRepack = 0;
      repackedCommits = 0;
      catchUp();
    }

    /**
     * The writer learns of commits made beside it (by the raw loop), as it would take in a push by
     * hand: the branch fence records the branch's head, and the state catches up. Not measured.
     */
    void catchUp() {
      pool.preparedQuery("UPDATE public_data_head SET commit_id = $1").execute(Tuple.of(writerGit.head().name()))
          .await();
      holder.set(loader.catchUp(holder.current()));
    }

    // ---- the modes

    void slice(Mode mode, int commits) throws Exception {
      runSlice(tallies.get(mode), commits);
    }

    private void runSlice(Tally tally, int commits) throws Exception {
      switch (tally.mode) {
        case RAW -> rawLoop(tally, commits, this::evaluationChange, "bench.evaluate");
        case PIPELINED -> pipelined(tally, commits, "bench.evaluate");
        case SEQUENTIAL -> sequential(tally, commits, "bench.evaluate");
        case PIPELINED_INSERT -> pipelined(tally, commits, "bench.evaluate-insert");
        case PEOPLE_RAW -> rawLoop(tally, commits, this::personChange, "bench.person");
        case PEOPLE_PIPELINED -> pipelined(tally, commits, "bench.person");
        default -> throw new IllegalArgumentException(tally.mode.name());
      }
    }

    String nextTarget() {
      return targets.get(nextTarget++ % targets.size());
    }

    interface Change {
      PathChange make(String slug, int number);
    }

    PathChange evaluationChange(String slug, int number) {
      PersonEvaluation e = BenchRules.evaluation(slug, number, Instant.now().truncatedTo(ChronoUnit.MILLIS));
      return PathChange.put(Sheet.PERSON_EVALUATIONS.path(RecordKeys.evaluation(e)),
          codec.encode(Sheet.PERSON_EVALUATIONS, e));
    }

    PathChange personChange(String slug, int number) {
      Person p = BenchRules.edited(people.get(slug), number, Instant.now().truncatedTo(ChronoUnit.MILLIS));
      people.put(slug, p);
      return PathChange.put(Sheet.PEOPLE.path(slug), codec.encode(Sheet.PEOPLE, p));
    }

    /**
     * GitTreeWriter.commit in a loop on the writer's own GitTreeWriter (the verticle is idle
     * meanwhile), with the commit message the rule writes, and maybeRepack after each commit.
     */
    void rawLoop(Tally tally, int commits, Change change, String action) {
      ObjectId head = writerGit.head();
      long start = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        String slug = nextTarget();
        int number = ++sequence;
        WriteCommand command = BenchRules.command(action, slug, number);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        String message = BenchRules.message(command, people.get(slug)).render();
        PersonIdent ident = ATTRIBUTION.ident(command.actor(), now);
        CommitResult result = writerGit.commit(head, List.of(change.make(slug, number)), ident, message);
        if (!(result instanceof CommitResult.Committed committed)) {
          throw new IllegalStateException("raw commit " + number + ": " + result);
        }
        head = committed.commit();
        long r0 = System.nanoTime();
        writerGit.maybeRepack();
        if (++sinceRepack >= options.repackEvery()) {
          sinceRepack = 0;
          repackedCommits += options.repackEvery();
          tally.repacks++;
          tally.repackNanos += System.nanoTime() - r0;
        }
      }
      tally.slice(System.nanoTime() - start);
      tally.commits += commits;
      expectedCommits += commits;
      catchUp();
    }

    /** Commands through the event bus with {@code inFlight} outstanding at all times. */
    void pipelined(Tally tally, int commits, String action) throws InterruptedException {
      int inFlight = options.inFlight();
      Semaphore permits = new Semaphore(inFlight);
      AtomicInteger failures = new AtomicInteger();
      AtomicReference<Throwable> firstFailure = new AtomicReference<>();
      long start = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        permits.acquire();
        int number = ++sequence;
        long sent = System.nanoTime();
        writes.write(BenchRules.command(action, nextTarget(), number)).onComplete(ar -> {
          long received = System.nanoTime();
          if (ar.failed()) {
            failures.incrementAndGet();
            firstFailure.compareAndSet(null, ar.cause());
          }
          tally.add(number, sent, received, BenchRules.MARKS.remove(number));
          permits.release();
        });
      }
      permits.acquire(inFlight);
      writerDone(tally, commits, start);
      if (failures.get() > 0) {
        throw new IllegalStateException(failures.get() + " writes failed", firstFailure.get());
      }
    }

    /** One command at a time: send, wait for the reply, send the next. */
    void sequential(Tally tally, int commits, String action) {
      long start = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        int number = ++sequence;
        long sent = System.nanoTime();
        writes.write(BenchRules.command(action, nextTarget(), number)).await();
        tally.add(number, sent, System.nanoTime(), BenchRules.MARKS.remove(number));
      }
      writerDone(tally, commits, start);
    }

    /**
     * Ends a writer slice. The writer schedules its repack after replying to the 500th command, so
     * wait for it (maybeRepack is synchronized with it; it runs the repack itself if the writer
     * has not started it yet): the slice that made the 500th commit pays for the repack, as the
     * raw loop's does.
     */
    private void writerDone(Tally tally, int commits, long start) {
      sinceRepack += commits;
      if (sinceRepack >= options.repackEvery()) {
        sinceRepack -= options.repackEvery();
        repackedCommits += options.repackEvery();
        tally.repacks++;
      }
      writerGit.maybeRepack();
      tally.slice(System.nanoTime() - start);
      tally.commits += commits;
      expectedCommits += commits;
    }

    /** The writer's PostgreSQL steps alone (pool connection, BEGIN, private step, COMMIT), chained on an event loop. */
    void postgresOnly() {
      int count = options.commits();
      pgSelect = postgresOnly(count, false);
      pgInsert = postgresOnly(count, true);
    }

    private Tally postgresOnly(int count, boolean insert) {
      Tally tally = new Tally(Mode.PIPELINED);
      Promise<Void> done = Promise.promise();
      AtomicInteger left = new AtomicInteger(count);
      Runnable[] step = new Runnable[1];
      step[0] = () -> {
        if (left.getAndDecrement() == 0) {
          done.complete();
          return;
        }
        pool.getConnection().compose(conn -> conn.begin()
            .compose(tx -> BenchRules.privateStep(insert, "pg-only", 0).apply(conn).compose(r -> tx.commit()))
            .eventually(conn::close))
            .onComplete(ar -> {
              if (ar.failed()) {
                done.fail(ar.cause());
              } else {
                step[0].run();
              }
            });
      };
      long start = System.nanoTime();
      vertx.runOnContext(v -> step[0].run());
      done.future().await();
      tally.nanos = System.nanoTime() - start;
      tally.commits = count;
      return tally;
    }

    // ---- checks and facts

    Result finish() throws IOException {
      System.out.printf(Locale.ROOT, "%n--- N = %,d people ---%n", n);
      for (Tally t : tallies.values()) {
        if (t.commits > 0) {
          System.out.println(t);
        }
      }
      System.out.printf(Locale.ROOT, "PostgreSQL tx alone: SELECT 1 %.3f ms, INSERT %.3f ms%n", pgSelect.msPerCommit(),
          pgInsert.msPerCommit());
      verify();
      long[] size = repositorySize();
      int packs = packCount();
      System.out.printf(Locale.ROOT, "repository at the end: %.1f MB, %,d loose objects, %d pack files%n",
          size[0] / 1e6, size[1], packs);
      return new Result(n, seedMillis, loadMillis, tallies, pgSelect, pgInsert, size[0], size[1], packs,
          treeKb("people"), treeKb("person-evaluations"), fullGcMillis, fullGcEveryCommits, fullGcObjects);
    }

    /**
     * The full gc the app makes once the packs since the last one hold as many objects as it packed
     * (GitTreeWriter's geometric repacking), timed apart after the small-folder commits.
     */
    long fullGcMillis;
    /** Commits between two full gcs at this size: the objects the gc packed / objects a commit adds. */
    long fullGcEveryCommits;
    long fullGcObjects;
    /** Commits the measurement's repacks packed since the last full gc (resetRepackCounters). */
    long repackedCommits;

    void timeFullGc() {
      double objectsPerCommit = writerGit.objectsPackedSinceFullGc() / (double) Math.max(1, repackedCommits);
      long t0 = System.nanoTime();
      writerGit.repackNow();
      fullGcMillis = (System.nanoTime() - t0) / 1_000_000;
      fullGcObjects = writerGit.objectsInFullGc();
      fullGcEveryCommits = Math.max(1, Math.round(fullGcObjects / objectsPerCommit));
      sinceRepack = 0;
      repackedCommits = 0;
    }

    /** Every command made exactly one commit, in one line of history, and memory holds what git holds. */
    void verify() throws IOException {
      ObjectId head = repository.head();
      long count = 0;
      try (RevWalk walk = new RevWalk(repository.repository())) {
        walk.markStart(walk.parseCommit(head));
        while (walk.next() != null) {
          count++;
        }
      }
      if (count != expectedCommits) {
        throw new IllegalStateException("expected " + expectedCommits + " commits, history has " + count);
      }
      catchUp();
      PublicState state = holder.current();
      int evaluations = state.size(Sheet.PERSON_EVALUATIONS);
      if (!head.name().equals(state.commit()) || state.size(Sheet.PEOPLE) != n
          || evaluations < targets.size() || evaluations > 2 * targets.size()) {
        throw new IllegalStateException("unexpected state: " + state.size(Sheet.PEOPLE) + " people, " + evaluations
            + " evaluations");
      }
      System.out.printf(Locale.ROOT, "verified: %,d commits in one line of history; %,d people and %,d evaluations in"
          + " memory, as in git%n", count, n, evaluations);
    }

    long[] repositorySize() throws IOException {
      long bytes = 0;
      long loose = 0;
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
          bytes += Files.size(p);
          if (p.getParent().getFileName().toString().matches("[0-9a-f]{2}")) {
            loose++;
          }
        }
      }
      return new long[]{bytes, loose};
    }

    int packCount() {
      try (Stream<Path> files = Files.list(dir.resolve("public.git/objects/pack"))) {
        return (int) files.filter(p -> p.toString().endsWith(".pack")).count();
      } catch (IOException e) {
        return -1;
      }
    }

    int treeKb(String folder) throws IOException {
      try (ObjectReader reader = repository.repository().newObjectReader();
          RevWalk walk = new RevWalk(reader);
          TreeWalk tw = TreeWalk.forPath(reader, folder, walk.parseCommit(repository.head()).getTree())) {
        return (int) (reader.getObjectSize(tw.getObjectId(0), Constants.OBJ_TREE) / 1024);
      }
    }

    @Override
    public void close() throws IOException {
      if (vertx != null) {
        vertx.close().await();
      }
      repository.close();
      if (db != null) {
        db.close();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  // ------------------------------------------------------------------------------------ the bench rules

  /** Write rules registered with the writer the way GitWriterTest registers its test rules. */
  static final class BenchRules {
    /**
     * Per command number, System.nanoTime() when the rule ran, when its private step finished and
     * when the writer built the reply (after the git commit, the PostgreSQL COMMIT and the state
     * update). The client adds send and receive times.
     */
    static final Map<Integer, long[]> MARKS = new ConcurrentHashMap<>();

    static List<WriteHandler> all() {
      return List.of(
          WriteHandler.of("bench.evaluate", (ctx, cmd) -> evaluate(ctx, cmd, false)),
          WriteHandler.of("bench.evaluate-insert", (ctx, cmd) -> evaluate(ctx, cmd, true)),
          WriteHandler.of("bench.person", BenchRules::editPerson));
    }

    static WriteCommand command(String action, String slug, int number) {
      return new WriteCommand(action, BENCHER, "PUT", "/api/people/" + slug + "/evaluation",
          new JsonObject().put("slug", slug).put("number", number));
    }

    /** A human's verdict on a person: person-evaluations/<slug>/human-bench.toml. */
    static PersonEvaluation evaluation(String slug, int number, Instant now) {
      return new PersonEvaluation(slug, "human-" + BENCHER.slug(), number % 7 == 0 ? "spam" : "legit",
          "Checked the profile and recent activity (bench write #" + number + ").", List.of(), 0.9, now);
    }

    static Person edited(Person p, int number, Instant now) {
      return new Person(p.id(), p.legacyId(), p.slug(), p.fullName(), "Edited bio, bench write #" + number + ".",
          p.avatarKey(), p.accountLevel(), p.agent(), p.githubUserId(), p.githubLogin(), p.deletedAt(),
          p.deactivatedBy(), p.createdAt(), now);
    }

    static CommitMessage message(WriteCommand cmd, Person subject) {
      return Attribution.actorTrailers(Attribution.message(cmd, cmd.action(), "person", subject.id(), subject.slug())
          .body("bench write #" + cmd.params().getInteger("number")), cmd.actor()).build();
    }

    static Function<SqlConnection, Future<?>> privateStep(boolean insert, String slug, int number) {
      if (insert) {
        return tx -> tx.preparedQuery("INSERT INTO bench_private (person_slug, note) VALUES ($1, $2)")
            .execute(Tuple.of(slug, "bench write #" + number));
      }
      return tx -> tx.query("SELECT 1").execute();
    }

    static Future<WritePlan> evaluate(WriteContext ctx, WriteCommand cmd, boolean insert) {
      String slug = cmd.params().getString("slug");
      int number = cmd.params().getInteger("number");
      long[] marks = mark(number);
      Person subject = ctx.state().personBySlug(slug).orElse(null);
      if (subject == null) {
        return Future.failedFuture(new IllegalArgumentException("no person " + slug));
      }
      PersonEvaluation e = evaluation(slug, number, ctx.now());
      return Future.succeededFuture(new WritePlan(
          List.of(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(e), e)),
          timed(privateStep(insert, slug, number), marks), message(cmd, subject), reply(marks)));
    }

    static long[] mark(int number) {
      long[] marks = new long[]{System.nanoTime(), 0, 0};
      MARKS.put(number, marks);
      return marks;
    }

    static Function<SqlConnection, Future<?>> timed(Function<SqlConnection, Future<?>> step, long[] marks) {
      return tx -> step.apply(tx).onSuccess(r -> marks[1] = System.nanoTime());
    }

    static Function<PublicState, JsonObject> reply(long[] marks) {
      return s -> {
        marks[2] = System.nanoTime();
        return new JsonObject().put("commit", s.commit());
      };
    }

    static Future<WritePlan> editPerson(WriteContext ctx, WriteCommand cmd) {
      String slug = cmd.params().getString("slug");
      long[] marks = mark(cmd.params().getInteger("number"));
      Person subject = ctx.state().personBySlug(slug).orElse(null);
      if (subject == null) {
        return Future.failedFuture(new IllegalArgumentException("no person " + slug));
      }
      Person p = edited(subject, cmd.params().getInteger("number"), ctx.now());
      return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PEOPLE, slug, p)),
          timed(privateStep(false, slug, 0), marks), message(cmd, subject), reply(marks)));
    }
  }

  // ------------------------------------------------------------------------------------ seed data

  /** Plausible people: names, slugs, some bios, GitHub links and avatars, a few staff and agents. */
  static final class Seeds {
    static final String[] FIRST = {"ada", "grace", "alan", "katherine", "linus", "margaret", "dennis", "barbara",
        "ken", "frances", "john", "radia", "tim", "shafi", "donald", "hedy", "edsger", "anita", "guido", "sophie",
        "james", "mary", "niklaus", "carol", "bjarne", "jean", "yukihiro", "lynn", "rasmus", "annie"};
    static final String[] LAST = {"lovelace", "hopper", "turing", "johnson", "torvalds", "hamilton", "ritchie",
        "liskov", "thompson", "allen", "backus", "perlman", "berners-lee", "goldwasser", "knuth", "lamarr",
        "dijkstra", "borg", "van-rossum", "wilson", "gosling", "keller", "wirth", "shaw", "stroustrup", "bartik",
        "matsumoto", "conway", "lerdorf", "easley"};
    static final String[] BIOS = {"Civic technologist and weekend hacker.", "Designer interested in accessible maps.",
        "Data analyst; I like open budgets and transit data.", "Backend developer. Ask me about PostgreSQL.",
        "Organizer of the Tuesday hack nights."};

    static Person person(Random random, int i) {
      String first = FIRST[random.nextInt(FIRST.length)];
      String last = LAST[random.nextInt(LAST.length)];
      String slug = first + "-" + last + "-" + i;
      String fullName = cap(first) + " " + cap(last.replace('-', ' '));
      Instant created = Instant.parse("2019-01-01T00:00:00Z").plusSeconds(random.nextInt(6 * 365 * 86_400));
      boolean github = random.nextInt(10) < 6;
      String level = random.nextInt(200) == 0 ? "staff" : random.nextInt(50) == 0 ? "editor" : "user";
      return new Person(new UUID(random.nextLong(), random.nextLong()).toString(),
          random.nextInt(3) == 0 ? String.valueOf(i) : null,
          slug, fullName, random.nextInt(3) == 0 ? BIOS[random.nextInt(BIOS.length)] : null,
          random.nextBoolean() ? "avatars/" + new UUID(random.nextLong(), random.nextLong()) + ".webp" : null,
          level, random.nextInt(100) == 0 ? Boolean.TRUE : null,
          github ? 1_000_000L + random.nextInt(90_000_000) : null,
          github ? first + last.replace("-", "") + i : null, null, null, created,
          created.plusSeconds(random.nextInt(86_400 * 30)));
    }

    private static String cap(String s) {
      StringBuilder out = new StringBuilder();
      for (String word : s.split(" ")) {
        out.append(out.length() == 0 ? "" : " ").append(Character.toUpperCase(word.charAt(0)))
            .append(word.substring(1));
      }
      return out.toString();
    }
  }

  // ------------------------------------------------------------------------------------ the report

  static final class Report {
    static String section(Options options, Machine machine, List<Scenario.Result> results, Load smallLoad,
        Load peopleLoad) {
      StringBuilder md = new StringBuilder();
      md.append(SECTION).append("\n\n");
      md.append("Measured on ").append(machine.date()).append(" with\n\n```sh\n").append(options.command())
          .append("\n```\n\n");
      md.append(String.format(Locale.ROOT, "Machine: %d cores (%s), %s RAM; `java -version`: %s; JGit %s; %s"
          + " (local, `fsync` = %s, `synchronous_commit` = %s, `wal_sync_method` = %s); fdatasync of an 8 kB write:"
          + " %,.0f/s. The machine is shared: other processes kept %.0f%% of the cores busy just before the run and"
          + " %.0f%% on average during the small-folder measurement (%.0f%% in its busiest round)%s.%n%n",
          machine.cores(), machine.cpu(), machine.memory(), machine.java(), machine.jgit(),
          machine.postgres().replaceAll(" on .*", ""), machine.settings().get("fsync"),
          machine.settings().get("synchronous_commit"), machine.settings().get("wal_sync_method"),
          machine.fdatasyncPerSecond(), 100 * machine.busyBefore(), 100 * smallLoad.average(),
          100 * smallLoad.maxRound,
          peopleLoad == null ? "" : String.format(Locale.ROOT, ", %.0f%% during the `people/` one",
              100 * peopleLoad.average())));
      md.append(String.format(Locale.ROOT, "How: for each N, a fresh bare repository (`DataRepository.openOrInit`) is"
          + " seeded in one commit with N people (`people/<slug>.toml`, realistic `Person` records through"
          + " `TomlCodec`) and one evaluation for each of %,d evaluated people (the same %,d at every N, so"
          + " `person-evaluations/` has the same size and only the number of people differs), and gets its own"
          + " PostgreSQL database and `GitWriterVerticle`. Each commit writes one record for a different person."
          + " **Raw** is `GitTreeWriter.commit` in a loop: the path-only splicing plumbing, i.e. the raw JGit"
          + " path-only commit. **Writer** is the full `GitWriterVerticle` (rule, PostgreSQL transaction, git"
          + " commit and compare-and-set, COMMIT, in-memory state, reply) with a bench rule registered like the"
          + " test rules of `GitWriterTest`: a `PersonEvaluation` put whose private step is `SELECT 1`; commands"
          + " go over the event bus with %d in flight (**pipelined**, the queue never empties) or each after the"
          + " previous reply (**sequential**, latency-bound). All modes and both N are interleaved in slices of"
          + " %d commits, round after round, until each has %,d (after %d warm-up commits each), so that load"
          + " from elsewhere hits every figure alike. Repacking runs as in the app: the raw loop commits"
          + " through the writer's own `GitTreeWriter` (while the writer is idle), whose one counter repacks"
          + " after every %d commits (`SHOTSTASH_REPACK_EVERY`, default): the objects of those commits into one"
          + " new pack, merged with the packs before it like the bits of a binary counter (geometric repacking); the"
          + " slice that made the last of them waits for it, and the repacks fall evenly on the modes: %d per mode"
          + " (merges in the same places at both N). The app runs a full JGit gc once the packs made since the last"
          + " one hold as many objects as it packed, so the bigger the repository the rarer; that one is timed"
          + " apart, right after each N's small-folder commits, and spread over the commits between two of them"
          + " (the objects it packed / the objects a commit adds).%n%n",
          EVALUATED, EVALUATED, options.inFlight(), options.slice(), options.commits(), options.warmup(),
          options.repackEvery(), options.commits() / options.repackEvery()));

      Scenario.Result first = results.get(0);
      Scenario.Result last = results.get(results.size() - 1);
      md.append("### One small record per commit: `person-evaluations/<slug>/human-bench.toml`\n\n");
      md.append("| People | Raw JGit commits/s | Writer pipelined commits/s | Writer sequential commits/s"
          + " | Writer / raw (pipelined; sequential) | " + shortCount(last.n()) + " / " + shortCount(first.n())
          + " (raw; pipelined; sequential) |\n");
      md.append("|---:|---:|---:|---:|---:|---:|\n");
      for (Scenario.Result r : results) {
        String scale = r == first ? "–" : String.format(Locale.ROOT, "%.2f; %.2f; %.2f",
            rate(r, Mode.RAW) / rate(first, Mode.RAW), rate(r, Mode.PIPELINED) / rate(first, Mode.PIPELINED),
            rate(r, Mode.SEQUENTIAL) / rate(first, Mode.SEQUENTIAL));
        md.append(String.format(Locale.ROOT, "| %,d | %.0f | %.0f | %.0f | %.2f; %.2f | %s |%n", r.n(),
            rate(r, Mode.RAW), rate(r, Mode.PIPELINED), rate(r, Mode.SEQUENTIAL),
            rate(r, Mode.PIPELINED) / rate(r, Mode.RAW), rate(r, Mode.SEQUENTIAL) / rate(r, Mode.RAW), scale));
      }
      if (results.size() > 2) {
        md.append("\n(The last column compares each N with the first.)\n");
      }

      md.append("\nWhere the time goes, in ms per commit (means over the measured commits):\n\n");
      md.append("| People | Raw: commit | Raw: repack share | One repack, s | Writer pipelined"
          + " | Writer: rule + private step | Writer: git commit + COMMIT + state | Writer: reply to next rule"
          + " | PostgreSQL tx alone | Writer pipelined, private INSERT | PostgreSQL tx alone, INSERT |\n");
      md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Scenario.Result r : results) {
        Tally rawT = r.get(Mode.RAW);
        Tally pipe = r.get(Mode.PIPELINED);
        md.append(String.format(Locale.ROOT,
            "| %,d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
            r.n(), rawT.commitMsWithoutRepack(), rawT.repackShareMs(),
            rawT.repacks == 0 ? Double.NaN : rawT.repackNanos / 1e9 / rawT.repacks,
            pipe.msPerCommit(), pipe.phaseMs(pipe.planToPrivateDone), pipe.phaseMs(pipe.privateDoneToReply),
            pipe.betweenMs(), r.pgSelect().msPerCommit(), r.get(Mode.PIPELINED_INSERT).msPerCommit(),
            r.pgInsert().msPerCommit()));
      }
      md.append("\n\"Raw: repack share\" is the time of the repacks inside the raw loop divided by its commits."
          + " The writer's phases come from timestamps the bench rule takes when it runs, when its private step"
          + " finishes and when the writer builds the reply (after the git commit, the PostgreSQL COMMIT and the"
          + " state update), and \"reply to next rule\" is the time from building one reply to the rule of the"
          + " next command (publishing the change, replying, then the next command's pool connection and"
          + " BEGIN). The writer's repacks are in its per-commit figure only. \"PostgreSQL tx alone\" runs the writer's statements (pool connection,"
          + " BEGIN, private step, COMMIT) without git, chained on an event loop. The private INSERT makes the"
          + " COMMIT durable (a WAL flush), as for a rule that writes private rows; `SELECT 1` does not.\n\n");

      if (results.stream().anyMatch(r -> r.get(Mode.PEOPLE_RAW).commits > 0)) {
        md.append("### One record in `people/` per commit (the folder of N entries)\n\n");
        md.append(String.format(Locale.ROOT, "Reported apart, as DATA.md asks: each commit rewrites one"
            + " `people/<slug>.toml` (a bio edit), so the `people` tree of N entries is rewritten every time."
            + " Raw and writer pipelined, interleaved the same way, %,d commits each after %d warm-up commits.%n%n",
            options.peopleCommits(), options.peopleWarmup()));
        md.append("| People | `people` tree | Raw JGit commits/s | of which repack, ms per commit"
            + " | Writer pipelined commits/s | Writer / raw |\n");
        md.append("|---:|---:|---:|---:|---:|---:|\n");
        for (Scenario.Result r : results) {
          md.append(String.format(Locale.ROOT, "| %,d | %,d KB | %.1f | %.1f | %.1f | %.2f |%n", r.n(),
              r.personTreeKb(), rate(r, Mode.PEOPLE_RAW), r.get(Mode.PEOPLE_RAW).repackShareMs(),
              rate(r, Mode.PEOPLE_PIPELINED), rate(r, Mode.PEOPLE_PIPELINED) / rate(r, Mode.PEOPLE_RAW)));
        }
        md.append("\n");
      }

      md.append("Repository at the end of the run: ");
      for (Scenario.Result r : results) {
        md.append(String.format(Locale.ROOT, "%s%,d people: %.0f MB in %d pack files, %,d loose objects",
            r == first ? "" : "; ", r.n(), r.repoBytes() / 1e6, r.packs(), r.looseObjects()));
      }
      md.append(". The pack files a full gc or a merge replaces stay for an hour (`gc.prunePackExpire`, and the"
          + " writer's own expiry for merges), so they are counted here: a full gc adds a copy of the repository"
          + " for an hour, a merge a copy of the packs it merged.\n\n");

      md.append("### Goals\n\n");
      md.append(goals(options, results, smallLoad));
      return md.toString();
    }

    /**
     * A 95% interval for the rate ratio big/small of one mode, from the rounds paired (each round
     * ran both N's slices back to back, repacks in the same rounds): the mean of the per-round log
     * ratios, plus or minus t times its standard error. {NaN, NaN} with fewer than 3 rounds.
     */
    static double[] ratioInterval(Scenario.Result small, Scenario.Result big, Mode mode) {
      List<Long> a = small.get(mode).sliceNanos;
      List<Long> b = big.get(mode).sliceNanos;
      int n = Math.min(a.size(), b.size());
      if (n < 3) {
        return new double[]{Double.NaN, Double.NaN};
      }
      double[] logs = new double[n];
      double mean = 0;
      for (int i = 0; i < n; i++) {
        logs[i] = Math.log((double) a.get(i) / b.get(i));
        mean += logs[i] / n;
      }
      double var = 0;
      for (double x : logs) {
        var += (x - mean) * (x - mean) / (n - 1);
      }
      double half = tQuantile(n - 1) * Math.sqrt(var / n);
      return new double[]{Math.exp(mean - half), Math.exp(mean + half)};
    }

    /** Student's t, two-sided 95%, for {@code df} degrees of freedom. */
    static double tQuantile(int df) {
      double[] table = {12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
          2.12, 2.11, 2.10, 2.09, 2.09};
      return df <= table.length ? table[df - 1] : 1.96 + 2.4 / df;
    }

    static String interval(double[] ci) {
      return Double.isNaN(ci[0]) ? "" : String.format(Locale.ROOT, " (95%% interval %.2f–%.2f)", ci[0], ci[1]);
    }

    static double rate(Scenario.Result r, Mode mode) {
      return r.get(mode).perSecond();
    }

    static String shortCount(int n) {
      return n % 1000 == 0 ? n / 1000 + "k" : String.valueOf(n);
    }

    /** The two goals, judged from this run's figures, with what dominates when one is missed. */
    static String goals(Options options, List<Scenario.Result> results, Load load) {
      StringBuilder md = new StringBuilder();
      if (load.average() > 0.25) {
        md.append(String.format(Locale.ROOT, "**Caution:** other processes kept %.0f%% of the cores busy on average"
            + " during this run. The interleaving spreads that load over every figure, so the ratios are still"
            + " meaningful, but less precise than on a quiet machine.%n%n", 100 * load.average()));
      }
      boolean allHalf = true;
      StringBuilder half = new StringBuilder();
      for (Scenario.Result r : results) {
        double pipe = rate(r, Mode.PIPELINED) / rate(r, Mode.RAW);
        double seq = rate(r, Mode.SEQUENTIAL) / rate(r, Mode.RAW);
        allHalf &= pipe >= 0.5;
        half.append(String.format(Locale.ROOT, "%s%,d people: pipelined %.2f × raw, sequential %.2f × raw",
            half.length() == 0 ? "" : "; ", r.n(), pipe, seq));
      }
      md.append(String.format(Locale.ROOT, "- **Writer at least half the raw rate (queue never empty): %s** (%s).",
          allHalf ? "met" : "not met", half));
      Scenario.Result worst = results.stream()
          .min(Comparator.comparingDouble(r -> rate(r, Mode.PIPELINED) / rate(r, Mode.RAW))).orElseThrow();
      Tally pipe = worst.get(Mode.PIPELINED);
      Tally rawT = worst.get(Mode.RAW);
      double rule = pipe.phaseMs(pipe.planToPrivateDone);
      double gitPhase = pipe.phaseMs(pipe.privateDoneToReply);
      double between = pipe.betweenMs();
      double gitExtra = gitPhase - rawT.commitMsWithoutRepack();
      md.append(String.format(Locale.ROOT, " At %,d people the writer takes %.2f ms per commit against the raw loop's"
          + " %.2f ms (of which %.2f ms is the repack share, which the writer pays alike). The writer's commit"
          + " splits into the rule and its private step, %.2f ms; the git commit + COMMIT + state phase, %.2f ms"
          + " (the raw commit alone: %.2f ms, so %+.2f ms for the worker-thread hops, the PostgreSQL COMMIT and"
          + " the state update); and %.2f ms from one reply to the next command's rule. PostgreSQL is a small part:"
          + " the whole transaction alone takes %.2f ms (%.2f ms with a durable INSERT, and the writer with a"
          + " private INSERT runs at %.0f commits/s against %.0f with `SELECT 1`). What dominates the writer's"
          + " extra time is %s.",
          worst.n(), pipe.msPerCommit(), rawT.msPerCommit(), rawT.repackShareMs(), rule, gitPhase,
          rawT.commitMsWithoutRepack(), gitExtra, between, worst.pgSelect().msPerCommit(),
          worst.pgInsert().msPerCommit(), rate(worst, Mode.PIPELINED_INSERT), rate(worst, Mode.PIPELINED),
          between >= gitExtra && between >= rule
              ? "the step between commands (the writer does one command end to end before it takes the next)"
              : gitExtra >= rule ? "the work around the git commit" : "the rule and its private step"));
      boolean seqHalf = results.stream().allMatch(r -> rate(r, Mode.SEQUENTIAL) / rate(r, Mode.RAW) >= 0.5);
      md.append(seqHalf ? " Sent one at a time (latency-bound), the writer also stays above half.\n"
          : " Sent one at a time (latency-bound), the writer falls below half: each command then also pays the"
              + " event-bus round trip and the thread wake-ups that a full queue hides.\n");
      if (results.size() < 2) {
        return md.append("- 20k vs 1k: only one N was measured.\n").toString();
      }
      Scenario.Result small = results.get(0);
      Scenario.Result big = results.get(results.size() - 1);
      double ratio = rate(big, Mode.PIPELINED) / rate(small, Mode.PIPELINED);
      double[] ci = ratioInterval(small, big, Mode.PIPELINED);
      // the full gc, spread over the commits between two of them
      double gcShareBig = big.fullGcShareMs();
      double gcShareSmall = small.fullGcShareMs();
      double withGc = (1000.0 / (1000.0 / rate(big, Mode.PIPELINED) + gcShareBig))
          / (1000.0 / (1000.0 / rate(small, Mode.PIPELINED) + gcShareSmall));
      boolean gcKeepsIt = withGc >= ratio - 0.02; // the full gc's share moves the ratio by less than 2 points
      String verdict = ratio >= 1.0 && gcKeepsIt ? "met"
          : !Double.isNaN(ci[1]) && ci[1] >= 1.0 && gcKeepsIt ? "not shown to be slower (within this run's noise)"
              : "not met";
      md.append(String.format(Locale.ROOT, "- **No slower at %,d than at %,d people (small folder): %s**:"
          + " writer pipelined %.2f ×%s; raw %.2f ×%s; writer sequential %.2f ×%s. The intervals come from"
          + " pairing the rounds (each round ran both sizes back to back) and show how much this run's"
          + " figures move with the load on the machine. With the full gc's share per commit added (below), the"
          + " writer's ratio is %.2f ×.", big.n(), small.n(), verdict, ratio, interval(ci),
          rate(big, Mode.RAW) / rate(small, Mode.RAW), interval(ratioInterval(small, big, Mode.RAW)),
          rate(big, Mode.SEQUENTIAL) / rate(small, Mode.SEQUENTIAL),
          interval(ratioInterval(small, big, Mode.SEQUENTIAL)), withGc));
      Tally bigRaw = big.get(Mode.RAW);
      Tally smallRaw = small.get(Mode.RAW);
      double dRepack = bigRaw.repackShareMs() - smallRaw.repackShareMs();
      double dCommit = bigRaw.commitMsWithoutRepack() - smallRaw.commitMsWithoutRepack();
      md.append(String.format(Locale.ROOT, " In the raw loop, %,d people cost %+.2f ms per commit in the commit itself"
          + " and %+.2f ms in the repack share against %,d", big.n(), dCommit, dRepack, small.n()));
      if (bigRaw.repacks > 0 && smallRaw.repacks > 0) {
        md.append(String.format(Locale.ROOT, ": one repack of %d commits takes %.2f s at %,d people and %.2f s at %,d,"
            + " and the writer waits for it (the repack holds the GitTreeWriter's lock and the writer's ordered worker"
            + " queue); the full gc takes %.2f s at %,d people (%,d objects, so one every %,d commits) and %.2f s at"
            + " %,d (%,d objects, one every %,d commits), i.e. %.2f and %.2f ms per commit", options.repackEvery(),
            bigRaw.repackNanos / 1e9 / bigRaw.repacks, big.n(), smallRaw.repackNanos / 1e9 / smallRaw.repacks,
            small.n(),
            big.fullGcMillis() / 1e3, big.n(), big.fullGcObjects(), big.fullGcEveryCommits(),
            small.fullGcMillis() / 1e3, small.n(), small.fullGcObjects(), small.fullGcEveryCommits(),
            big.fullGcShareMs(), small.fullGcShareMs()));
      }
      md.append('.');
      if (ratio < 1.0) {
        md.append(dRepack >= dCommit
            ? " The repack dominates the difference: its cost grows with the whole repository, while a commit"
                + " only rewrites the trees on its path.\n"
            : " The commit itself accounts for more of the difference than the repack.\n");
      } else {
        md.append("\n");
      }
      return md.toString();
    }
  }
}
