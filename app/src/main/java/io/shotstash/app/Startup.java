package io.shotstash.app;

import io.shotstash.auth.Actor;
import io.shotstash.cluster.FirstStartLock;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.StateSnapshot;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.write.Attribution;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up work that needs neither Vert.x nor the rest of the app: the database migrations,
 * and opening the data repository and loading its public state, the state snapshot being read on a
 * third thread meanwhile (docs/public-data.md). {@link #begin} starts them at once, each on a thread
 * of its own; {@code Main} calls it first, so they run while Vert.x and the metrics start, and
 * {@link AppVerticle} takes their results. The public data also waits for the database's instance
 * id ({@link InstanceIdentity}): a start whose database and data repository do not belong together
 * fails with {@link InstanceIdentity.Refused}.
 */
public final class Startup {
  /** The data repository, open, its public state at the branch head, and the codec it was read with. */
  public record PublicData(DataRepository repository, PublicState state, TomlCodec codec) {}

  private final CompletableFuture<Void> database;
  private final CompletableFuture<PublicData> publicData;

  private Startup(CompletableFuture<Void> database, CompletableFuture<PublicData> publicData) {
    this.database = database;
    this.publicData = publicData;
  }

  /**
   * Starts the three threads and returns at once: everything slow to make (the codec, the snapshot
   * reader, the repository) is made on them, not on the caller's thread.
   */
  public static Startup begin(Config config) {
    CompletableFuture<Void> database = new CompletableFuture<>();
    // what the migrated database records about its instance, for the public-state thread's check
    CompletableFuture<InstanceIdentity.DatabaseFacts> databaseFacts = new CompletableFuture<>();
    database.whenComplete((v, e) -> {
      if (e != null) {
        databaseFacts.completeExceptionally(e);
      }
    });
    onThread("startup-database", database, () -> {
      Database.prepare(config.database());
      databaseFacts.complete(InstanceBinding.readDatabase(config.database()));
      database.complete(null);
    });
    CompletableFuture<StateSnapshot.Result> snapshot = new CompletableFuture<>();
    onThread("startup-snapshot", snapshot, () -> snapshot.complete(new StateSnapshot().load(snapshotFile(config))));
    CompletableFuture<PublicData> publicData = new CompletableFuture<>();
    onThread("startup-public-state", publicData, () -> {
      Logger log = LoggerFactory.getLogger(Startup.class);
      TomlCodec codec = new TomlCodec();
      Files.createDirectories(config.dataDir().resolve("media"));
      // one database, one data repository (InstanceIdentity): a repository without an id waits here
      // for the database's facts; one with an id is checked once both are read
      InstanceBinding.Opened opened = FirstStartLock.around(config.dataDir(), () -> InstanceBinding.open(config,
          new Attribution(config.noreplyDomain()).ident(Actor.SYSTEM, Instant.now()), () -> join(databaseFacts)));
      DataRepository repository = opened.repository();
      PublicStateLoader.Loaded loaded;
      try {
        long t0 = System.nanoTime();
        loaded = new PublicStateLoader(repository, codec).loadHead(snapshot.join()); // read meanwhile
        log.info("Public state loaded: {} records at {} {} in {} ms", loaded.state().records(),
            loaded.state().commit() == null ? "(none)" : loaded.state().commit().substring(0, 12), loaded.how(),
            (System.nanoTime() - t0) / 1_000_000);
        if (opened.confirmLater()) {
          InstanceBinding.confirm(config, opened, join(databaseFacts));
        }
      } catch (RuntimeException e) {
        repository.close();
        throw e;
      }
      publicData.complete(new PublicData(repository, loaded.state(), codec));
      if (!loaded.snapshotIsCurrent()) {
        writeSnapshot(config, loaded.state()); // after the state was handed over: the start does not wait
      }
    });
    return new Startup(database, publicData);
  }

  /** Where the snapshot of the public state lives: the data folder (docs/public-data.md). */
  public static Path snapshotFile(Config config) {
    return config.dataDir().resolve("public-state.snapshot");
  }

  /**
   * Writes the snapshot of {@code state} unless the file already holds it; a failure only costs the
   * next start its shortcut.
   */
  static void writeSnapshot(Config config, PublicState state) {
    Logger log = LoggerFactory.getLogger(Startup.class);
    try {
      long t0 = System.nanoTime();
      StateSnapshot snapshots = new StateSnapshot();
      if (snapshots.holds(snapshotFile(config), state.commit())) {
        return;
      }
      snapshots.write(snapshotFile(config), state);
      log.info("Public state snapshot written at {} in {} ms", state.commit() == null ? "(none)"
          : state.commit().substring(0, 12), (System.nanoTime() - t0) / 1_000_000);
    } catch (IOException | RuntimeException e) {
      log.warn("Could not write the public state snapshot {}: {}", snapshotFile(config), e.toString());
    }
  }

  /** The migrations, applied (or the reason they could not be, e.g. {@link Database.UnavailableException}). */
  Future<Void> database(Context context) {
    return Future.fromCompletionStage(database, context);
  }

  Future<PublicData> publicData(Context context) {
    return Future.fromCompletionStage(publicData, context);
  }

  /** The future's value, waiting for it; its failure as thrown, not wrapped. */
  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  /** Blocking start-up work that may throw. */
  private interface Work {
    void run() throws Exception;
  }

  /** Runs {@code work} on a new daemon thread; what it throws fails {@code result}, unwrapped. */
  private static void onThread(String name, CompletableFuture<?> result, Work work) {
    Thread thread = new Thread(() -> {
      try {
        work.run();
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, name);
    thread.setDaemon(true);
    thread.start();
  }
}
