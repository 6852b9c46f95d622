package io.shotstash.db;

import io.shotstash.config.Config;
import io.shotstash.config.Config.DatabaseUrl;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which PostgreSQL this process uses: the one place that decides, for {@code serve}, {@code migrate}
 * and {@code seed-demo} alike (docs/operations.md → The embedded database).
 * <ol>
 *   <li>{@code DATABASE_URL} set: that server, whatever happens (never the embedded one: a server
 *       that refuses us is an error to fix, not a reason to start an empty database beside it);</li>
 *   <li>unset, and something answers at 127.0.0.1:{@code SHOTSTASH_DEFAULT_DATABASE_PORT}: that
 *       server, as {@code postgres} (the same rule: if it refuses us, that is the error);</li>
 *   <li>unset and nothing answers there: the embedded PostgreSQL in {@code <data dir>/postgres}. A
 *       cluster node never embeds: its nodes must share one server, so it stops with a clear line.</li>
 * </ol>
 * {@link #close()} stops the embedded server (nothing to do otherwise); call it after everything that
 * uses the database has closed.
 */
public final class DatabaseServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DatabaseServer.class);
  /** How long the default address has to accept a connection: a local server answers at once. */
  private static final int PROBE_MILLIS = 1_000;

  private final Config config;
  private final EmbeddedDatabase embedded;

  private DatabaseServer(Config config, EmbeddedDatabase embedded) {
    this.config = config;
    this.embedded = embedded;
  }

  /**
   * Chooses (and, for the embedded one, starts) the server for {@code config}. Blocking. Throws
   * {@link Database.UnavailableException} with what to do when there is none to use.
   */
  public static DatabaseServer choose(Config config, boolean clusterNode) {
    if (config.databaseUrlSet()) {
      return new DatabaseServer(config, null);
    }
    DatabaseUrl fallback = config.database();
    if (answers(fallback.host(), fallback.port())) {
      return new DatabaseServer(config, null);
    }
    if (clusterNode) {
      throw new Database.UnavailableException("serve --cluster needs a PostgreSQL server that every node shares, and "
          + "DATABASE_URL is not set (nothing answers at " + fallback.host() + ":" + fallback.port()
          + "): set DATABASE_URL=postgresql://user@host:5432/shotstash on every node. A cluster node never starts "
          + "the embedded database.", null);
    }
    log.info("DATABASE_URL is not set and no PostgreSQL answers at {}:{}: using the embedded PostgreSQL, data in {} "
        + "(for a server of your own, set DATABASE_URL=postgresql://user@host:5432/shotstash; "
        + "docs/operations.md → The embedded database)", fallback.host(), fallback.port(),
        EmbeddedDatabase.folder(config.dataDir()).toAbsolutePath().normalize());
    EmbeddedDatabase embedded = EmbeddedDatabase.start(config.dataDir());
    return new DatabaseServer(config.withDatabase(embedded.url()), embedded);
  }

  /** Whether something accepts a TCP connection at host:port within {@link #PROBE_MILLIS}. */
  static boolean answers(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), PROBE_MILLIS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The settings, with the database this process uses. */
  public Config config() {
    return config;
  }

  public boolean embedded() {
    return embedded != null;
  }

  /** Stops the embedded server, if this process started one. Idempotent. */
  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }
}
