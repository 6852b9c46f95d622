package io.shotstash.testing;

import io.shotstash.auth.Actor;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.GitWriterVerticle;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.publicdata.write.WriteHandler;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a git writer test runs against, fresh for each test: a migrated PostgreSQL, a bare repository
 * with branch {@link #BRANCH}, the state loaded from it, and a client to send writes with. The
 * subclass deploys the writer itself ({@link #newWriter}) with its own test rules, once or again
 * after undeploying it; everything closes after each test (after the subclass's own
 * {@code @AfterEach}).
 */
public abstract class WithGitWriter {
  protected static final String BRANCH = "published";

  @TempDir
  protected Path tmp;

  protected TestDatabase db;
  protected Vertx vertx;
  protected Pool pool;
  protected DataRepository repository;
  protected PublicStateLoader loader;
  protected PublicStateHolder holder;
  protected GitTreeWriter git;
  protected PublicDataClient writes;
  protected final TomlCodec codec = new TomlCodec();
  protected final Attribution attribution = new Attribution("codeforphilly.org");

  @BeforeEach
  public void openDatabaseAndRepository() {
    db = TestDatabase.create();
    db.migrate();
    vertx = Vertx.vertx();
    pool = Database.pool(vertx,
        Config.load(Map.of("DATABASE_URL", db.databaseUrl(), "SHOTSTASH_DB_POOL_SIZE", "4")));
    repository = DataRepository.openOrInit(tmp.resolve("public.git"), BRANCH, Sheet.templates(),
        attribution.ident(Actor.SYSTEM, Instant.now()));
    loader = new PublicStateLoader(repository, codec);
    holder = new PublicStateHolder(loader.loadHead());
    git = new GitTreeWriter(repository.repository(), BRANCH);
    writes = new PublicDataClient(vertx);
  }

  @AfterEach
  public void closeDatabaseAndRepository() {
    vertx.close().await();
    repository.close();
    db.close();
  }

  /** A writer on node {@code node-a} over this repository and database, with these write rules. */
  protected GitWriterVerticle newWriter(List<WriteHandler> rules) {
    Map<String, WriteHandler> handlers = new HashMap<>();
    for (WriteHandler h : rules) {
      handlers.put(h.action(), h);
    }
    return new GitWriterVerticle(pool, holder, loader, git, codec, attribution, handlers, "node-a");
  }
}
