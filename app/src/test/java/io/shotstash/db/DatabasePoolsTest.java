package io.shotstash.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.config.Config;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node's two pools against a real PostgreSQL: the shared one commits durably, the job queue's
 * second one asynchronously, and building the second does not change the first (the connect
 * options' properties start from a copy of the defaults, not the defaults themselves).
 */
class DatabasePoolsTest {
  TestDatabase db;
  Vertx vertx;
  Config config;

  @BeforeEach
  void start() {
    db = TestDatabase.create();
    vertx = Vertx.vertx();
    config = Config.load(Map.of("DATABASE_URL", db.databaseUrl(), "SHOTSTASH_DB_POOL_SIZE", "2"));
  }

  @AfterEach
  void stop() {
    vertx.close().await();
    db.close();
  }

  static String setting(Pool pool, String name) {
    return pool.query("SELECT current_setting('" + name + "')").execute().await().iterator().next().getString(0);
  }

  @Test
  void theQueuesPoolCommitsAsynchronouslyAndTheSharedOneDurably() {
    Database.QueuePools queue = Database.queuePools(vertx, config, 2);
    Pool async = queue.asyncCommits();
    Pool durable = Database.pool(vertx, config);
    Pool durableBuiltAfter = Database.pool(vertx, Config.load(Map.of("DATABASE_URL", db.databaseUrl(),
        "SHOTSTASH_DB_POOL_SIZE", "3")));

    assertThat(setting(async, "synchronous_commit")).isEqualTo("off");
    assertThat(setting(durable, "synchronous_commit")).isEqualTo("on");
    assertThat(setting(queue.durable(), "synchronous_commit")).isEqualTo("on");
    assertThat(setting(durableBuiltAfter, "synchronous_commit")).isEqualTo("on");
    // the rest of the session is the same in both
    assertThat(setting(async, "DateStyle")).isEqualTo(setting(durable, "DateStyle"));
    assertThat(setting(async, "application_name")).isEqualTo(setting(durable, "application_name"));
  }
}
