package io.shotstash.app;

import io.shotstash.auth.Tokens;
import io.shotstash.cluster.ClusterNode;
import io.shotstash.cluster.FirstStartLock;
import io.shotstash.cluster.WriterElectionVerticle;
import io.shotstash.cluster.WriterRecord;
import io.shotstash.cluster.WriterWatch;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.http.HttpServices;
import io.shotstash.http.HttpVerticle;
import io.shotstash.http.graphql.GraphqlRoutes;
import io.shotstash.media.LibraryVerticle;
import io.shotstash.media.LocalStorage;
import io.shotstash.media.uploads.LibraryTarget;
import io.shotstash.pipeline.JobOutputTarget;
import io.shotstash.media.uploads.PartialFiles;
import io.shotstash.media.uploads.ResumableUploads;
import io.shotstash.media.uploads.UploadSweeperVerticle;
import io.shotstash.metrics.Metrics;
import io.shotstash.moderation.GitHubProbe;
import io.shotstash.moderation.ModerationVerticle;
import io.shotstash.moderation.PurgeSweeperVerticle;
import io.shotstash.people.Sessions;
import io.shotstash.pipeline.JobQueueVerticle;
import io.shotstash.pipeline.LeaseSweeperVerticle;
import io.shotstash.pipeline.MinuteSampler;
import io.shotstash.pipeline.QueueGauges;
import io.shotstash.pipeline.QueueListenerVerticle;
import io.shotstash.pipeline.QueueLoops;
import io.shotstash.pipeline.QueueSignal;
import io.shotstash.pipeline.WorkerDirectory;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.ReplicaVerticle;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.GitWriterVerticle;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.ratelimit.LocalRateLimiter;
import io.shotstash.ratelimit.RateLimiter;
import io.shotstash.worker.EventBusWorkerClient;
import io.shotstash.worker.WorkerLoop;
import io.shotstash.worker.WorkerSettings;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one node: prepares the database and the data folder, loads the public state, then deploys
 * the replica, the git writer and the HTTP verticles. {@link #start()} is one composed future; any
 * failure stops the start with its reason.
 */
public final class AppVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(AppVerticle.class);

  private final Config config;
  /** The cluster this node joined ({@code serve --cluster}), or null for a single node. */
  private final ClusterNode cluster;
  private final Startup startup;
  private final String nodeId = UUID.randomUUID().toString();
  private final AtomicBoolean migrated = new AtomicBoolean();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<HttpVerticle> httpVerticles = new ArrayList<>();
  private final LocalRateLimiter localLimiter = new LocalRateLimiter();
  private final QueueLoops queueLoops = new QueueLoops();
  private PublicStateHolder holder;
  private Pool pool;
  private String setupToken;

  public AppVerticle(Config config) {
    this(config, null, null);
  }

  /**
   * A node: {@code cluster} is the cluster it joined (limits count cluster-wide and the git writer
   * runs where the writer lock is held), or null; {@code startup} the start-up work already begun
   * ({@link Startup#begin}), or null to begin it in {@link #start()}.
   */
  public AppVerticle(Config config, ClusterNode cluster, Startup startup) {
    this.config = config;
    this.cluster = cluster;
    this.startup = startup;
  }

  /**
   * Takes the start-up work {@link Startup} began (the migrations and the public state, side by
   * side; begun here when nobody began it before), then deploys every verticle on them.
   */
  @Override
  public Future<?> start() {
    long started = System.nanoTime();
    Startup work = startup != null ? startup : Startup.begin(config);
    Future<Void> database = work.database(context).onSuccess(v -> migrated.set(true));
    Future<Startup.PublicData> publicData = work.publicData(context).onSuccess(d -> closeables.add(d.repository()));
    return Future.all(database, publicData)
        .compose(
            v -> deployAll(publicData.result().repository(), publicData.result().codec(), publicData.result().state()))
        .onSuccess(v -> announce((System.nanoTime() - started) / 1_000_000))
        .onSuccess(v -> vertx.executeBlocking(() -> {
          Metrics.bindJvmMetrics(); // after the start: nothing reads them before
          return null;
        }, false));
  }

  private Future<?> deployAll(DataRepository repository, TomlCodec codec, PublicState state) {
    holder = new PublicStateHolder(state);
    pool = Database.pool(vertx, config);
    setupToken = config.setupToken() != null ? config.setupToken() : Tokens.random("sst_");
    PublicStateLoader loader = new PublicStateLoader(repository, codec);
    GitTreeWriter git = new GitTreeWriter(repository.repository(), repository.branch(), config.repackEvery());
    closeables.add(0, git);
    Map<String, WriteHandler> handlers = WriteRules.all();
    Future<String> jwtSecret = vertx.executeBlocking(() -> FirstStartLock.around(config.dataDir(), this::jwtSecret));
    // the media folder's start lists and cleans tmp/: off the event loop, beside the secret
    Future<LocalStorage> media = vertx.executeBlocking(this::localStorage, false);
    Future<PartialFiles> partials = media.compose(storage -> vertx.executeBlocking(
        () -> new PartialFiles(vertx, storage.uploadsFolder()), false));
    return Future.all(jwtSecret, media, partials).compose(ready -> {
      Sessions sessions = new Sessions(vertx, pool, holder, jwtSecret.result(), config.sessionDays());
      LocalStorage storage = media.result();
      // ---- cluster (serve --cluster): limits counted on every node together
      RateLimiter limiter = cluster == null ? localLimiter : cluster.rateLimiter(vertx);
      Config.Pipeline pipeline = config.pipeline();
      QueueSignal signal = new QueueSignal();
      WorkerDirectory workers = new WorkerDirectory();
      // in a cluster, writes go through the watch: none waits on a writer whose node died
      PublicDataClient writes = new PublicDataClient(vertx,
          cluster == null ? null : WriterWatch.start(vertx, cluster.hazelcast()));
      // side by side: none of these needs another to start; the purge sweeper and in-process workers
      // send to the writer and the queue, and HTTP serves only once everything answers
      List<Future<?>> deployed = List.of(
          vertx.deployVerticle(new ReplicaVerticle(holder, loader, codec, nodeId, pool, config.dataBranch())),
          deployWriter(() -> new GitWriterVerticle(pool, holder, loader, git, codec,
              new Attribution(config.noreplyDomain()), handlers, nodeId, storage)),
          vertx.deployVerticle(new QueueListenerVerticle(config.database(), signal)),
          deployQueue(storage, signal, workers, queueLoops, pipeline),
          vertx.deployVerticle(new LibraryVerticle(pool, storage)),
          vertx.deployVerticle(
              new LeaseSweeperVerticle(pool, storage, pipeline.leaseSeconds(), pipeline.sweepSeconds())),
          vertx.deployVerticle(new QueueGauges(pool, Metrics.registry(), pipeline.leaseSeconds())),
          vertx.deployVerticle(new MinuteSampler(pool)),
          vertx.deployVerticle(new ModerationVerticle(pool, holder,
              new GitHubProbe(vertx, config.github().apiUrl(), pool), config.moderation().dataRepoWebUrl(),
              config.dataBranch())));
      // meanwhile, on this context: the GraphQL schema every HTTP verticle shares
      ResumableUploads uploads = new ResumableUploads(vertx, pool, config.database(), partials.result(),
          Map.of(LibraryTarget.NAME, new LibraryTarget(vertx, storage),
              JobOutputTarget.NAME, new JobOutputTarget(vertx, pool, storage)),
          config.uploadExpiryHours());
      HttpServices services = new HttpServices(config, pool, holder, writes, sessions, limiter,
          setupToken, migrated::get, storage, GraphqlRoutes.build(vertx, limiter), workers, queueLoops, uploads);
      vertx.setPeriodic(60_000, id -> localLimiter.prune());
      return Future.all(deployed)
          .compose(all -> vertx.deployVerticle(new PurgeSweeperVerticle(pool, holder, writes,
              config.moderation().purgeSweepSeconds())))
          .compose(id -> vertx.deployVerticle(new UploadSweeperVerticle(uploads)))
          .compose(id -> deployInProcessWorkers(storage))
          .compose(id -> deployHttp(services));
    });
  }

  /**
   * The job queue: SHOTSTASH_PIPELINE_QUEUE_INSTANCES instances (one by default: the largest batches),
   * each on an event loop of its own; the node's callers find theirs through QueueLoops, and all
   * share this node's worker cache and queue signal. Each opens its own two pools, together about
   * SHOTSTASH_DB_POOL_SIZE connections of each kind (at least 2 per instance).
   */
  private Future<?> deployQueue(LocalStorage storage, QueueSignal signal, WorkerDirectory workers, QueueLoops loops,
      Config.Pipeline pipeline) {
    int instances = pipeline.queueInstances();
    int poolSize = Math.max(2, (config.dbPoolSize() + instances - 1) / instances);
    return vertx.deployVerticle(() -> new JobQueueVerticle(() -> Database.queuePools(vertx, config, poolSize), loops,
        storage, workers, signal, pipeline.leaseSeconds(), pipeline.heartbeatSeconds()),
        new DeploymentOptions().setInstances(instances));
  }

  // ---- cluster (serve --cluster): where the git writer runs

  /**
   * A single node runs the git writer itself. In a cluster every node deploys a
   * {@link WriterElectionVerticle}, and the one holding the cluster-wide writer lock runs the writer.
   */
  private Future<?> deployWriter(Supplier<Deployable> writer) {
    if (cluster == null) {
      String name = "localhost:" + config.httpPort();
      WriterRecord.nameThisNode(vertx, name);
      return vertx.deployVerticle(writer.get()).compose(id -> WriterRecord.standalone(vertx, name, nodeId));
    }
    String name = cluster.nodeName(config.httpPort());
    WriterRecord.nameThisNode(vertx, name);
    return vertx.deployVerticle(new WriterElectionVerticle(cluster.hazelcast(), name, writer));
  }

  /**
   * SHOTSTASH_IN_PROCESS_WORKERS reference workers ({@code in-process-1} ..), each a {@link WorkerLoop}
   * talking to pipeline.queue through the event bus: no HTTP, no token.
   */
  private Future<?> deployInProcessWorkers(LocalStorage storage) {
    List<Future<String>> deployed = new ArrayList<>();
    for (int n = 1; n <= config.inProcessWorkers(); n++) {
      WorkerSettings settings = WorkerSettings.inProcess("in-process-" + n, config.dataDir().resolve("worker-tmp"));
      deployed.add(vertx.deployVerticle(new WorkerLoop(settings,
          new EventBusWorkerClient(vertx, queueLoops, storage, config.pipeline().maxOutputBytes()))));
    }
    return Future.all(deployed);
  }

  private Future<?> deployHttp(HttpServices services) {
    int instances = config.effectiveHttpInstances();
    return vertx.deployVerticle(() -> {
      HttpVerticle v = new HttpVerticle(services);
      synchronized (httpVerticles) {
        httpVerticles.add(v);
      }
      return v;
    }, new DeploymentOptions().setInstances(instances));
  }

  private LocalStorage localStorage() {
    try {
      return new LocalStorage(vertx, config.dataDir().resolve("media"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the media folder " + config.dataDir().resolve("media"), e);
    }
  }

  /** The JWT key: the setting, or one generated once and kept in the data folder (mode 0600). */
  private String jwtSecret() throws IOException {
    if (config.jwtSecret() != null) {
      return config.jwtSecret();
    }
    Path file = config.dataDir().resolve("jwt.key");
    if (Files.exists(file)) {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    }
    String secret = Tokens.random("");
    Files.writeString(file, secret, StandardCharsets.UTF_8);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      log.debug("no POSIX permissions on this file system; {} keeps its default mode", file);
    }
    return secret;
  }

  private void announce(long startMillis) {
    log.info("Shotstash is listening on http://localhost:{} (data in {}, database {}; {} transport; started in {} ms)",
        port(), config.dataDir().toAbsolutePath().normalize(), config.database().display(),
        vertx.isNativeTransportEnabled() ? "native" : "NIO", startMillis);
    if (!holder.current().setupDone()) {
      if (config.setupToken() == null) {
        // Printed once, at start, so the person who started the app can finish setup.
        log.info("First-run setup: POST /api/setup with header X-Setup-Token: {}", setupToken);
      } else {
        log.info("First-run setup: POST /api/setup with the X-Setup-Token set in SHOTSTASH_SETUP_TOKEN");
      }
    }
  }

  /** The port the HTTP verticles listen on. */
  public int port() {
    synchronized (httpVerticles) {
      return httpVerticles.isEmpty() ? -1 : httpVerticles.get(0).port();
    }
  }

  public PublicStateHolder publicState() {
    return holder;
  }

  public Pool pool() {
    return pool;
  }

  /** Which job-queue instance serves which event loop of this node. */
  public QueueLoops queueLoops() {
    return queueLoops;
  }

  @Override
  public Future<?> stop() {
    Future<Void> closed = pool == null ? Future.succeededFuture() : pool.close();
    return closed.eventually(() -> vertx.executeBlocking(() -> {
      if (holder != null) {
        Startup.writeSnapshot(config, holder.current()); // the next start reads it instead of every file
      }
      for (AutoCloseable c : closeables) {
        c.close();
      }
      return null;
    }));
  }
}
