package io.shotstash.bench;

import io.shotstash.bench.BenchSupport.AppProcess;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streaming 1 GiB in and out of the app (started with {@code -Xmx128m}: a body held in the heap
 * would not fit), beside dd writing the same bytes to the same disk and nginx serving the same
 * stored file, each measured with curl; the app's heap sampled with jstat throughout. The app
 * forces an upload and an output to disk before it answers, so dd with {@code conv=fdatasync} is
 * their peer; the time the app spent in those fsyncs is read from its {@code /metrics}.
 */
final class StreamBench {
  static final String SECTION = "## Pipeline: streaming 1 GiB";
  static final String KIND = "bench/stream";
  static final long GIB = 1L << 30;
  /** The size of a tus upload's PATCH (issue #20: 1 GiB in 64 MiB pieces). */
  static final long PIECE = 64L << 20;
  static final String TUS = "app tus upload `PATCH /api/v1/uploads/:id`, 64 MiB pieces";
  static final String DD_SYNC = "dd write, conv=fdatasync";
  static final String DD_CACHE = "dd write, no fsync (page cache)";
  static final String DD_RECYCLED = "dd write, no fsync, into memory freed just before";
  /**
   * How long each timed write waits after the last memory was freed. This machine is a virtual
   * machine whose kernel hands free memory back to its host ("Free page reporting enabled",
   * virtio-balloon) about 2 s after it is freed; while the host takes a gigabyte back, everything
   * in the machine slows down (the tus upload's last PATCHes took three times as long as its first
   * ones when a gigabyte had been deleted just before it started), and a write into memory freed
   * just before copies several times faster than into memory the host has taken back. 5 s: the
   * host is done with a gigabyte by then, and every write meets the same machine.
   */
  static final long QUIET_MILLIS = 5_000;

  /** MB/s (10^6 bytes) of each way, one value per repetition. */
  final Map<String, List<Double>> speeds = new LinkedHashMap<>();
  /** Of the upload and the output: {seconds in all, seconds the app spent forcing to disk}, per repetition. */
  final Map<String, List<double[]>> fsyncTimes = new LinkedHashMap<>();
  final Map<String, Long> peakHeapKb = new ConcurrentHashMap<>();
  long baselineUsedKb;
  long baselineTotalKb;
  long afterUsedKb;
  long afterGcUsedKb;
  String heapMax = "?";
  int samples;
  int collections;
  int fullCollections;
  long maxAfterGcMb;
  long maxBeforeGcMb;
  String nginxVersion = "?";
  String curlVersion = "?";
  String heapInfoBefore = "";
  String heapInfoAfter = "";
  private volatile String phase = "idle";

  /** The work folder: the 1 GiB source, nginx's files, the answers and the GC log. */
  private final Path work;

  StreamBench(Path work) {
    this.work = work;
  }

  /** Starts the app's {@code jar} with a 128 MiB heap and streams through it {@code reps} times. */
  void run(Vertx clientVertx, Path jar, int reps) throws Exception {
    Path source = work.resolve("source-1gib.bin");
    writeSource(source);
    List<Path> pieces = split(source);
    Path nginxDir = Files.createDirectories(work.resolve("nginx"));
    try (AppProcess app = BenchSupport.open(new AppProcess(clientVertx, jar, work, "stream",
        List.of("-Xmx128m", "-Xlog:gc:file=" + work.resolve("gc-stream.log"))))) {
      app.setupAndLogin();
      appPid = app.pid();
      Path media = app.dataDir.resolve("media");
      JobCycleBench.HttpWorker worker = null;
      Process nginx = null;
      Process jstat = null;
      try {
        nginx = startNginx(nginxDir, media);
        int nginxPort = Integer.parseInt(Files.readString(nginxDir.resolve("port")).strip());
        worker = new JobCycleBench(clientVertx, app, null, work, null, 0, 0, 0, 0).new HttpWorker("bench-stream");
        worker.register(KIND).await();
        curlVersion = BenchSupport.firstLine("curl", "--version");

        // untimed: one plain and one tus upload, so that neither way's first figure pays the JIT's warm-up
        Files.deleteIfExists(media.resolve("originals").resolve(upload(app, source)));
        Files.deleteIfExists(media.resolve("originals").resolve(tusUpload(app, pieces)));
        speeds.clear();
        fsyncTimes.clear();
        sync();

        BenchSupport.must(Duration.ofSeconds(30), "jcmd", Long.toString(app.pid()), "GC.run");
        heapInfoBefore = BenchSupport.must(Duration.ofSeconds(30), "jcmd", Long.toString(app.pid()), "GC.heap_info");
        long[] before = heap(heapInfoBefore);
        baselineTotalKb = before[0];
        baselineUsedKb = before[1];
        heapMax = BenchSupport.must(Duration.ofSeconds(30), "jcmd", Long.toString(app.pid()), "VM.flags")
            .replaceAll("(?s).*-XX:MaxHeapSize=(\\d+).*", "$1");
        jstat = sampleHeap(app.pid());
        Path gcLog = work.resolve("gc-stream.log");
        int gcLinesBefore = Files.readAllLines(gcLog).size();

        for (int rep = 1; rep <= reps; rep++) {
          BenchSupport.log("streaming, repetition %d of %d", rep, reps);
          quiet();
          record(DD_SYNC, ddWrite(source, true, DD_SYNC));
          // the plain and the tus upload take turns at going first
          if (rep % 2 == 0) {
            quiet();
            Files.deleteIfExists(media.resolve("originals").resolve(tusUpload(app, pieces)));
          }
          quiet();
          String fileId = upload(app, source);
          String stored = media.resolve("originals").resolve(fileId).toString();
          if (rep % 2 == 1) {
            quiet();
            Files.deleteIfExists(media.resolve("originals").resolve(tusUpload(app, pieces)));
          }
          quiet();
          record("nginx download", download("http://127.0.0.1:" + nginxPort + "/originals/" + fileId, null, "nginx"));
          record("app download `GET /media/o/:id`", download(app.baseUrl() + "/media/o/" + fileId,
              "Authorization: Bearer " + app.adminToken, "download"));
          quiet();
          record(DD_CACHE, ddWrite(source, false, DD_CACHE));
          record(DD_RECYCLED, ddIntoRecycledMemory(source));
          output(app, worker, source, fileId);
          Files.deleteIfExists(Path.of(stored));
          sync();
        }
        phase = "idle";
        Thread.sleep(600); // a last jstat sample
        gcDuring(Files.readAllLines(gcLog).subList(gcLinesBefore, Files.readAllLines(gcLog).size()));
        heapInfoAfter = BenchSupport.must(Duration.ofSeconds(30), "jcmd", Long.toString(app.pid()), "GC.heap_info");
        afterUsedKb = heap(heapInfoAfter)[1];
        BenchSupport.must(Duration.ofSeconds(30), "jcmd", Long.toString(app.pid()), "GC.run");
        afterGcUsedKb =
            heap(BenchSupport.must(Duration.ofSeconds(30), "jcmd", Long.toString(app.pid()), "GC.heap_info"))[1];
        if (!app.process.isAlive()) {
          throw new IllegalStateException("the app died while streaming; see " + app.logFile);
        }
      } finally {
        if (jstat != null) {
          jstat.destroy();
        }
        if (nginx != null) {
          nginx.destroy();
          nginx.waitFor();
        }
        if (worker != null) {
          worker.web.close();
        }
      }
    } finally {
      Files.deleteIfExists(source);
      for (Path piece : pieces) {
        Files.deleteIfExists(piece);
      }
      BenchSupport.deleteTree(nginxDir);
    }
  }

  private void record(String way, double mbPerSecond) {
    speeds.computeIfAbsent(way, k -> new ArrayList<>()).add(mbPerSecond);
    BenchSupport.log("%-40s %,8.0f MB/s", way, mbPerSecond);
  }

  /** Cores used during each way's transfers (the last repetition's). */
  final Map<String, String> cpuOf = new LinkedHashMap<>();
  private CpuMeter meter;
  private long appPid;

  private void startCpu() {
    meter = CpuMeter.start(appPid);
  }

  private void stopCpu(String way) {
    cpuOf.put(way, CpuMeter.describe(meter.stop()));
  }

  /** 1 GiB of pseudo-random bytes (a 4 MiB random block, each copy with its first bytes changed). */
  private static void writeSource(Path source) throws IOException, InterruptedException {
    byte[] block = new byte[4 << 20];
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < block.length; i += 8) {
      long v = random.nextLong();
      for (int j = 0; j < 8; j++) {
        block[i + j] = (byte) (v >>> (8 * j));
      }
    }
    try (OutputStream out = Files.newOutputStream(source)) {
      for (int i = 0; i < GIB / block.length; i++) {
        block[0] = (byte) i;
        block[1] = (byte) (i >> 8);
        out.write(block);
      }
    }
    sync();
  }

  static void sync() throws IOException, InterruptedException {
    BenchSupport.must(Duration.ofSeconds(120), "sync");
  }

  /** Before each timed transfer: {@code sync}, then {@link #QUIET_MILLIS} with nothing freed. */
  private static void quiet() throws IOException, InterruptedException {
    sync();
    Thread.sleep(QUIET_MILLIS);
  }

  /**
   * The page-cache write again, into memory freed just before (1 GiB written, fdatasync, and
   * deleted, untimed): what the same dd does when the machine's host has not taken the memory back.
   */
  private double ddIntoRecycledMemory(Path source) throws Exception {
    sync();
    Path recycled = work.resolve("recycled-1gib.bin");
    BenchSupport.must(Duration.ofSeconds(180), "dd", "if=/dev/zero", "of=" + recycled, "bs=1M", "count=1024",
        "conv=fdatasync");
    Files.delete(recycled);
    return ddWrite(source, false, DD_RECYCLED);
  }

  // ------------------------------------------------------------------------------------ the ways

  private double ddWrite(Path source, boolean fdatasync, String way) throws Exception {
    phase = "dd";
    Path target = work.resolve("dd-1gib.bin");
    try {
      List<String> cmd = new ArrayList<>(List.of("dd", "if=" + source, "of=" + target, "bs=1M"));
      if (fdatasync) {
        cmd.add("conv=fdatasync");
      }
      startCpu();
      BenchSupport.Output o = BenchSupport.run(Duration.ofSeconds(180), cmd.toArray(String[]::new));
      stopCpu(way);
      if (o.exit() != 0) {
        throw new IllegalStateException("dd failed: " + o.all());
      }
      Matcher m = Pattern.compile("copied, ([0-9.]+) s").matcher(o.stderr());
      if (!m.find()) {
        throw new IllegalStateException("dd printed no time: " + o.stderr());
      }
      return GIB / Double.parseDouble(m.group(1)) / 1e6;
    } finally {
      Files.deleteIfExists(target);
    }
  }

  /** curl -w: status, seconds, bytes. */
  private static double[] curl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "300", "-w", "%{http_code} %{time_total}"));
    cmd.addAll(List.of(args));
    BenchSupport.Output o = BenchSupport.run(Duration.ofSeconds(320), cmd.toArray(String[]::new));
    String[] f = o.stdout().strip().split("\\s+");
    if (o.exit() != 0 || f.length < 2) {
      throw new IllegalStateException("curl failed: " + o.all());
    }
    return new double[]{Double.parseDouble(f[f.length - 2]), Double.parseDouble(f[f.length - 1])};
  }

  /**
   * Seconds the app has spent forcing stored files and their folders to disk after their last byte
   * ({@code shotstash_storage_fsync_seconds_sum} of the targets file and folder; not the early
   * flushes, which run while the body still streams in).
   */
  private static double appFsyncSeconds(AppProcess app) throws Exception {
    String metrics = BenchSupport.must(Duration.ofSeconds(30), "curl", "-sS", app.baseUrl() + "/metrics");
    Matcher m = Pattern.compile("(?m)^shotstash_storage_fsync_seconds_sum\\{target=\"(?:file|folder)\",?\\} (\\S+)$")
        .matcher(metrics);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /** POST /api/v1/files, the raw body streamed by curl -T; the app answers once the file is on disk. */
  private String upload(AppProcess app, Path source) throws Exception {
    phase = "upload";
    Path answer = work.resolve("upload-answer.json");
    String url = app.baseUrl() + "/api/v1/files?folderId=" + app.folderId();
    double fsyncBefore = appFsyncSeconds(app);
    startCpu();
    double[] r = curl("-X", "POST", "-T", source.toString(), "-o", answer.toString(),
        "-H", "Authorization: Bearer " + app.adminToken, "-H", "X-File-Name: big.bin",
        "-H", "Content-Type: application/octet-stream", url);
    stopCpu("app upload `POST /api/v1/files`");
    if (r[0] != 201) {
      throw new IllegalStateException("upload answered " + (int) r[0] + ": " + Files.readString(answer));
    }
    String id = new JsonObject(Files.readString(answer)).getJsonObject("data").getString("id");
    fsyncTimes.computeIfAbsent("upload", k -> new ArrayList<>())
        .add(new double[]{r[1], appFsyncSeconds(app) - fsyncBefore});
    record("app upload `POST /api/v1/files`", GIB / r[1] / 1e6);
    phase = "idle";
    return id;
  }

  /** The source cut into {@link #PIECE}-byte files, the bodies of the tus upload's PATCHes (untimed). */
  private List<Path> split(Path source) throws Exception {
    BenchSupport.must(Duration.ofSeconds(120), "split", "-b", Long.toString(PIECE), "-d", "-a", "2", source.toString(),
        work.resolve("piece-").toString());
    List<Path> pieces = new ArrayList<>();
    for (long at = 0, n = 0; at < GIB; at += PIECE, n++) {
      pieces.add(work.resolve(String.format(Locale.ROOT, "piece-%02d", n)));
    }
    return pieces;
  }

  /**
   * The same 1 GiB as a tus upload ({@code /api/v1/uploads}): a {@code POST} that creates it, then
   * one {@code PATCH} per 64 MiB piece, all from one curl process over one keep-alive connection
   * ({@code --next}), as a tus client sends them. The time is the sum of the requests' own times
   * (curl's {@code time_total} each), like the plain upload's. Answers the new file's id.
   */
  private String tusUpload(AppProcess app, List<Path> pieces) throws Exception {
    phase = "upload";
    String base64 =
        Base64.getEncoder().encodeToString("big-tus.bin".getBytes(StandardCharsets.UTF_8));
    String folder =
        Base64.getEncoder().encodeToString(app.folderId().getBytes(StandardCharsets.UTF_8));
    Path headers = work.resolve("tus-headers.txt");
    String auth = "Authorization: Bearer " + app.adminToken;
    startCpu();
    double[] created = curl("-X", "POST", "-D", headers.toString(), "-o", "/dev/null", "-H", auth,
        "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Length: " + GIB,
        "-H", "Upload-Metadata: filename " + base64 + ",folderId " + folder, app.baseUrl() + "/api/v1/uploads");
    if (created[0] != 201) {
      throw new IllegalStateException("tus create answered " + (int) created[0] + ": " + Files.readString(headers));
    }
    String location = header(headers, "Location");
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "300"));
    for (int i = 0; i < pieces.size(); i++) {
      if (i > 0) {
        cmd.add("--next");
      }
      cmd.addAll(List.of("-w", "%{http_code} %{time_total}\\n", "-o", "/dev/null", "-D", headers.toString(),
          "-X", "PATCH", "-T", pieces.get(i).toString(), "-H", auth, "-H", "Tus-Resumable: 1.0.0",
          "-H", "Content-Type: application/offset+octet-stream", "-H", "Upload-Offset: " + i * PIECE,
          app.baseUrl() + location));
    }
    BenchSupport.Output o = BenchSupport.run(Duration.ofSeconds(600), cmd.toArray(String[]::new));
    double seconds = created[1];
    for (String line : o.stdout().strip().split("\\n")) {
      String[] f = line.strip().split("\\s+");
      if (o.exit() != 0 || f.length < 2 || !f[0].equals("204")) {
        throw new IllegalStateException("tus PATCH failed: " + o.all());
      }
      seconds += Double.parseDouble(f[1]);
    }
    stopCpu(TUS);
    String id = header(headers, "Shotstash-File-Id");
    record(TUS, GIB / seconds / 1e6);
    phase = "idle";
    return id;
  }

  /** A header's value in a file curl wrote with {@code -D} (its last response), case-insensitive. */
  private static String header(Path dump, String name) throws IOException {
    for (String line : Files.readAllLines(dump)) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).strip();
      }
    }
    throw new IllegalStateException("no " + name + " in " + Files.readString(dump));
  }

  /** A job for the file, claimed by the worker; PUT .../output with 1 GiB; then released (its output is deleted). */
  private void output(AppProcess app, JobCycleBench.HttpWorker worker, Path source, String fileId) throws Exception {
    try (Connection c = app.jdbc();
        PreparedStatement ps = c.prepareStatement(
            "INSERT INTO pipeline_jobs (id, file_id, kind) VALUES (?::uuid, ?::uuid, ?)")) {
      ps.setString(1, UUID.randomUUID().toString());
      ps.setString(2, fileId);
      ps.setString(3, KIND);
      ps.executeUpdate();
    }
    HttpResponse<Buffer> claimed = null;
    for (int i = 0; i < 50; i++) { // the LISTEN notice may take a moment
      claimed = worker.next().await();
      if (claimed.statusCode() == 200) {
        break;
      }
      Thread.sleep(100);
    }
    if (claimed == null || claimed.statusCode() != 200) {
      throw new IllegalStateException(
          "could not claim the stream job: " + (claimed == null ? "" : claimed.statusCode()));
    }
    JsonObject job = claimed.bodyAsJsonObject().getJsonObject("job");
    String jobId = job.getString("id");
    String claim = job.getString("claimToken");
    quiet();
    phase = "output";
    Path answer = work.resolve("output-answer.json");
    double fsyncBefore = appFsyncSeconds(app);
    startCpu();
    double[] r = curl("-X", "PUT", "-T", source.toString(), "-o", answer.toString(),
        "-H", "X-Worker-Token: " + worker.token, "-H", "X-Claim-Token: " + claim,
        "-H", "Content-Type: video/mp4", "-H", "X-Output-Ext: mp4",
        app.baseUrl() + "/api/v1/pipeline/jobs/" + jobId + "/output");
    stopCpu("worker output `PUT .../jobs/:id/output`");
    phase = "idle";
    if (r[0] != 200) {
      throw new IllegalStateException("output answered " + (int) r[0] + ": " + Files.readString(answer));
    }
    fsyncTimes.computeIfAbsent("output", k -> new ArrayList<>())
        .add(new double[]{r[1], appFsyncSeconds(app) - fsyncBefore});
    record("worker output `PUT .../jobs/:id/output`", GIB / r[1] / 1e6);
    HttpResponse<Buffer> released = worker.web.post("/api/v1/pipeline/jobs/" + jobId + "/release")
        .putHeader("X-Worker-Token", worker.token).putHeader("X-Claim-Token", claim).send().await();
    if (released.statusCode() != 200) {
      throw new IllegalStateException("release answered " + released.statusCode() + " " + released.bodyAsString());
    }
    worker.calls += 1;
    try (Connection c = app.jdbc();
        PreparedStatement ps = c.prepareStatement(
            "UPDATE pipeline_jobs SET status = 'cancelled' WHERE id = ?::uuid")) {
      ps.setString(1, jobId);
      ps.executeUpdate();
    }
  }

  private double download(String url, String header, String phaseName) throws Exception {
    phase = phaseName;
    List<String> args = new ArrayList<>(List.of("-o", "/dev/null"));
    if (header != null) {
      args.addAll(List.of("-H", header));
    }
    args.add(url);
    startCpu();
    double[] r = curl(args.toArray(String[]::new));
    stopCpu(phaseName.equals("nginx") ? "nginx download" : "app download `GET /media/o/:id`");
    phase = "idle";
    if (r[0] != 200) {
      throw new IllegalStateException(url + " answered " + (int) r[0]);
    }
    return GIB / r[1] / 1e6;
  }

  // ------------------------------------------------------------------------------------ nginx and the heap

  /** nginx (Debian's) on a free port, one worker, sendfile, serving the app's media folder. */
  private Process startNginx(Path dir, Path root) throws Exception {
    int port = BenchSupport.freePort();
    Files.createDirectories(dir.resolve("tmp"));
    Files.writeString(dir.resolve("port"), Integer.toString(port));
    Path conf = Files.writeString(dir.resolve("nginx.conf"), String.format(Locale.ROOT, """
        daemon off;
        worker_processes 1;
        user root;
        pid %1$s/nginx.pid;
        error_log %1$s/error.log warn;
        events { worker_connections 64; }
        http {
          access_log off;
          sendfile on;
          tcp_nopush on;
          default_type application/octet-stream;
          client_body_temp_path %1$s/tmp/body;
          proxy_temp_path %1$s/tmp/proxy;
          fastcgi_temp_path %1$s/tmp/fastcgi;
          uwsgi_temp_path %1$s/tmp/uwsgi;
          scgi_temp_path %1$s/tmp/scgi;
          server {
            listen 127.0.0.1:%2$d;
            root %3$s;
          }
        }
        """, dir, port, root));
    nginxVersion = BenchSupport.firstLine("nginx", "-v");
    Process p = new ProcessBuilder("nginx", "-e", dir.resolve("error.log").toString(), "-p", dir.toString(), "-c",
        conf.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
    for (int i = 0; i < 50; i++) {
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
        s.shutdownOutput(); // connected: nginx listens
        return p;
      } catch (IOException e) {
        if (!p.isAlive()) {
          throw new IllegalStateException("nginx did not start: " + Files.readString(dir.resolve("stdout.log")));
        }
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException("nginx did not listen on " + port);
  }

  /** The collections during the transfers (-Xlog:gc lines "... 62M->14M(128M) 2.3ms"): count, largest heap left after one. */
  private void gcDuring(List<String> lines) {
    Pattern p = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
    for (String line : lines) {
      Matcher m = p.matcher(line);
      if (m.find()) {
        collections++;
        maxAfterGcMb = Math.max(maxAfterGcMb, Long.parseLong(m.group(2)));
        maxBeforeGcMb = Math.max(maxBeforeGcMb, Long.parseLong(m.group(1)));
        if (line.contains("Full")) {
          fullCollections++;
        }
      }
    }
  }

  /** "garbage-first heap total 131072K, used 12345K" → {total, used} in KB. */
  static long[] heap(String heapInfo) {
    Matcher m = Pattern.compile("total (\\d+)K, used (\\d+)K").matcher(heapInfo);
    if (!m.find()) {
      throw new IllegalStateException("unexpected GC.heap_info: " + heapInfo);
    }
    return new long[]{Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
  }

  /** jstat -gc every 100 ms; the largest used heap (survivors + eden + old) is kept per phase. */
  private Process sampleHeap(long pid) throws IOException {
    Process p = new ProcessBuilder("jstat", "-gc", Long.toString(pid), "100").redirectErrorStream(true).start();
    Thread t = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
        String[] header = null;
        String line;
        while ((line = in.readLine()) != null) {
          String[] f = line.strip().split("\\s+");
          if (f.length > 0 && f[0].equals("S0C")) {
            header = f;
            continue;
          }
          if (header == null || f.length != header.length) {
            continue;
          }
          double used = 0;
          for (int i = 0; i < header.length; i++) {
            if (header[i].matches("S0U|S1U|EU|OU")) {
              used += Double.parseDouble(f[i]);
            }
          }
          samples++;
          peakHeapKb.merge(phase, (long) used, Math::max);
        }
      } catch (IOException | RuntimeException e) {
        // jstat stopped
      }
    }, "jstat-reader");
    t.setDaemon(true);
    t.start();
    return p;
  }

  // ------------------------------------------------------------------------------------ the report

  String section(BenchSupport.Machine machine, String command, int reps) {
    StringBuilder md = new StringBuilder();
    md.append(SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s`.%n%n", machine.date(), command));
    md.append(machine.markdown());
    md.append(String.format(Locale.ROOT, "- Peers: %s (one worker, sendfile on, serving the app's media folder); %s;"
        + " `dd bs=1M`; every transfer timed by curl (%s)%n%n", nginxVersion, BenchSupport.firstLine("dd", "--version"),
        curlVersion.replaceAll(" \\(.*", "")));
    md.append(String.format(Locale.ROOT,
        "1 GiB (pseudo-random bytes), %d repetitions, interleaved; the app started with"
            + " `java -Xmx128m -jar shotstash.jar` (a heap of 128 MiB cannot hold a 1 GiB body, so these runs also show the bodies"
            + " stream). Uploads and downloads go over loopback; the file being served is in the page cache for both the app"
            + " and nginx.%n%n"
            + "Before each timed write: `sync`, then %d s in which nothing is freed. This machine is a virtual machine"
            + " whose kernel hands free memory back to its host about 2 s after it is freed (free page reporting); while the"
            + " host takes back a gigabyte, everything in the machine slows down, and a write into memory freed just before"
            + " copies several times faster than into memory the host took back (the row \"%s\"). Without the pause, which"
            + " transfer met the host's reclaim of the last deleted file decided the ratios more than the transfers did (in"
            + " one such run, the tus upload measured from 0.36× to 0.84× the plain upload; its slow repetitions were those"
            + " whose last PATCHes ran 2 s after a deletion).%n%n",
        reps, QUIET_MILLIS / 1000, DD_RECYCLED));
    md.append("| way | MB/s (each repetition) | median MB/s |\n|---|---|---:|\n");
    speeds.forEach((way, list) -> md.append(String.format(Locale.ROOT, "| %s | %s | **%s** |%n", way,
        String.join(", ", list.stream().map(v -> String.format(Locale.ROOT, "%,.0f", v)).toList()),
        BenchSupport.median(list))));
    // each ratio within one repetition (its ways ran seconds apart), then the median over the repetitions
    String upload = "app upload `POST /api/v1/files`";
    String output = "worker output `PUT .../jobs/:id/output`";
    String download = "app download `GET /media/o/:id`";
    String ddSync = DD_SYNC;
    String ddCache = DD_CACHE;
    String nginx = "nginx download";
    md.append(
        "\nCPU during the last repetition of each (`app` is the app process; `tools` is curl or dd, and nginx; the"
            + " kernel's copying is charged to the process that asked for it):\n\n");
    cpuOf.forEach((way, cpu) -> md.append("- ").append(way).append(": ").append(cpu).append("\n"));
    md.append("\nRatios, each within one repetition (its transfers ran seconds apart), and their median:\n\n");
    md.append("| ratio | each repetition | median |\n|---|---|---:|\n");
    double up = ratioRow(md, "upload / dd with fdatasync", upload, ddSync);
    double upCache = ratioRow(md, "upload / dd into the page cache", upload, ddCache);
    double out = ratioRow(md, "output / dd with fdatasync", output, ddSync);
    double outCache = ratioRow(md, "output / dd into the page cache", output, ddCache);
    double down = ratioRow(md, "download / nginx", download, nginx);
    double tus = ratioRow(md, "tus upload / plain upload", TUS, upload);
    double tusDd = ratioRow(md, "tus upload / dd with fdatasync", TUS, ddSync);
    md.append("\nThe app answers an upload (`201`) and an output (`200`) only once the bytes are on disk: it writes a"
        + " temporary file (flushing it every 64 MiB behind the stream), forces it (fdatasync), renames it into place and forces"
        + " the folder. So both compare with dd"
        + " `conv=fdatasync` (which also waits for the disk); dd into the page cache is the bound for a write that does not"
        + " wait, shown for reference. Time the app spent forcing to disk after the last byte (its"
        + " `shotstash_storage_fsync_seconds`, file and folder), of the whole transfer, each repetition: ");
    List<String> shares = new ArrayList<>();
    fsyncTimes.forEach((way, list) -> shares.add(way + " " + String.join(", ", list.stream()
        .map(t -> String.format(Locale.ROOT, "%.2f of %.2f s", t[1], t[0])).toList())));
    md.append(String.join("; ", shares)).append(".\n\n");
    long peak = peakHeapKb.values().stream().mapToLong(Long::longValue).max().orElse(0);
    long growth = peak - baselineUsedKb;
    long retained = maxAfterGcMb * 1024 - baselineUsedKb;
    md.append(String.format(Locale.ROOT,
        "Heap of the app (`-Xmx128m`, G1; MaxHeapSize %s bytes): **%,d KB** used after a full GC"
            + " before the transfers (`jcmd GC.heap_info`: %,d KB committed). During the transfers (%.1f GiB moved through the app)"
            + " `-Xlog:gc` shows %d collections (%d full), the heap at most **%,d MB after a collection** (what stays reachable)"
            + " and at most %,d MB before one (live data plus the garbage of the buffers streamed since the last one). The largest"
            + " used heap that `jstat -gc` sampled every 100 ms (%,d samples), by what was running: %s. After the transfers %,d KB"
            + " used, %,d KB after a full GC.%n%n",
        heapMax, baselineUsedKb, baselineTotalKb, 4.0 * reps, collections,
        fullCollections, maxAfterGcMb, maxBeforeGcMb, samples, peaks(), afterUsedKb, afterGcUsedKb));
    md.append(String.format(Locale.ROOT,
        "Goals (at least 0.8× of dd / nginx, medians of the ratios above; heap growth under 64 MB):"
            + " upload, its fsync included, %s against dd with fdatasync of the same size (%.2f×; %.2f× of dd into the page"
            + " cache); output %s against dd with fdatasync (%.2f×; %.2f× of dd into the page cache); download %s (%.2f× nginx);"
            + " heap growth %s: %,d KB (%.0f MiB)"
            + " counting only what stays after a collection, %,d KB (%.0f MiB) counting the largest sample, garbage included.%n",
        met(up), up, upCache, met(out), out, outCache, met(down), down,
        retained < 64 * 1024 && growth < 64 * 1024 ? "**met**"
            : retained < 64 * 1024 ? "**met** for what is retained" : "**not met**",
        Math.max(0, retained), Math.max(0, retained) / 1024.0, growth, growth / 1024.0));
    md.append(String.format(Locale.ROOT,
        "%nThe tus upload (issue \"Large libraries\") sends the same 1 GiB as one creating `POST`"
            + " and %d `PATCH`es of 64 MiB over one keep-alive connection (curl, which asks `Expect: 100-continue` as it does for"
            + " the plain upload), in each repetition just before or just after the plain upload (they take turns), after one"
            + " untimed upload of each way; each PATCH's bytes are forced to disk and its offset"
            + " recorded (in a file beside the bytes, and mirrored in PostgreSQL) before its `204`, and the last one moves the finished"
            + " file into the library as the plain upload does. Goal (tus adds at most 10%% to the plain upload's time, i.e. at"
            + " least %.2f× its rate): %s (%.2f× the plain upload, %.2f× dd with fdatasync).%n",
        GIB / PIECE, 1 / 1.1, tus >= 1 / 1.1 ? "**met**" : "**not met**", tus, tusDd));
    return md.toString();
  }

  private static String met(double ratio) {
    return ratio >= 0.8 ? "**met**" : "**not met**";
  }

  /** One row of the ratio table: ours / theirs in each repetition; returns the median. */
  private double ratioRow(StringBuilder md, String label, String ours, String theirs) {
    List<Double> a = speeds.getOrDefault(ours, List.of());
    List<Double> b = speeds.getOrDefault(theirs, List.of());
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      ratios.add(a.get(i) / b.get(i));
    }
    double median = BenchSupport.medianOf(ratios);
    md.append(String.format(Locale.ROOT, "| %s | %s | **%.2f×** |%n", label,
        String.join(", ", ratios.stream().map(r -> String.format(Locale.ROOT, "%.2f", r)).toList()), median));
    return median;
  }

  private String peaks() {
    StringBuilder b = new StringBuilder();
    for (String p : List.of("upload", "output", "download", "nginx", "dd", "idle")) {
      if (peakHeapKb.containsKey(p)) {
        b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %,d KB", p, peakHeapKb.get(p)));
      }
    }
    return b.toString();
  }
}
