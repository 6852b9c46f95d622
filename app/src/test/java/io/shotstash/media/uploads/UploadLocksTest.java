package io.shotstash.media.uploads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.testing.TestDatabase;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The upload locks and their kept sessions against a real PostgreSQL: a session is kept between
 * requests on an event loop and never holds a lock while kept; a held lock makes a second request
 * busy; a kept session that died is replaced; no more than {@link UploadLocks#KEPT_PER_LOOP} are kept.
 */
class UploadLocksTest {
  // a new instance, so a new database and Vert.x, for each test
  final TestDatabase db = TestDatabase.create();
  final Vertx vertx = Vertx.vertx();
  final Context loop = vertx.getOrCreateContext();
  final UploadLocks locks = new UploadLocks(vertx, db.url());

  @AfterEach
  void stop() {
    vertx.close().await();
    db.close();
  }

  /** Runs {@code call} on the event loop and waits for its future. */
  <T> T onLoop(Callable<Future<T>> call) {
    Promise<T> done = Promise.promise();
    loop.runOnContext(v -> {
      try {
        call.call().onComplete(done);
      } catch (Exception e) {
        done.fail(e);
      }
    });
    return done.future().await();
  }

  static Future<Integer> backendPid(SqlConnection conn) {
    return conn.query("SELECT pg_backend_pid()").execute().map(rows -> rows.iterator().next().getInteger(0));
  }

  long heldLocks() {
    return db.number("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
        + "WHERE l.locktype = 'advisory' AND l.classid = " + UploadSql.LOCK_CLASS
        + " AND d.datname = current_database()");
  }

  /** Lock sessions open on this test's database, once PostgreSQL has seen closed ones go (within 10 s). */
  long sessionsSettledAt(long expected) throws InterruptedException {
    String count = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = '"
        + UploadLocks.SESSION_NAME + "'";
    for (int i = 0; i < 200 && db.number(count) != expected; i++) {
      Thread.sleep(50);
    }
    return db.number(count);
  }

  @Test
  void aSessionIsKeptBetweenRequestsOnALoopAndHoldsNoLockWhileKept() throws InterruptedException {
    int first = onLoop(() -> locks.holding("a", conn -> {
      assertThat(heldLocks()).isEqualTo(1);
      return backendPid(conn);
    }));
    assertThat(heldLocks()).isZero();
    int second = onLoop(() -> locks.holding("b", UploadLocksTest::backendPid));

    assertThat(second).isEqualTo(first);
    assertThat(heldLocks()).isZero();
    assertThat(sessionsSettledAt(1)).isEqualTo(1);
  }

  @Test
  void aHeldLockMakesASecondRequestBusyAndOtherUploadsGoOn() {
    Promise<Void> holding = Promise.promise();
    Promise<Void> finishFirst = Promise.promise();
    Future<Void> first = onLoop(() -> Future.succeededFuture(locks.holding("a", conn -> {
      holding.complete();
      return finishFirst.future();
    })));
    holding.future().await();

    assertThatThrownBy(() -> onLoop(() -> locks.holding("a", UploadLocksTest::backendPid)))
        .isInstanceOf(UploadLocks.Busy.class);
    assertThat(onLoop(() -> locks.holding("b", UploadLocksTest::backendPid))).isPositive();

    loop.runOnContext(v -> finishFirst.complete());
    first.await();
    assertThat(onLoop(() -> locks.holding("a", UploadLocksTest::backendPid))).isPositive();
    assertThat(heldLocks()).isZero();
  }

  @Test
  void workThatFailsStillFreesTheLockAndTheSessionIsKept() {
    int pid = onLoop(() -> locks.holding("a", UploadLocksTest::backendPid));

    assertThatThrownBy(
        () -> onLoop(() -> locks.holding("a", conn -> Future.failedFuture(new IllegalStateException("disk full")))))
        .hasMessageContaining("disk full");

    assertThat(heldLocks()).isZero();
    assertThat(onLoop(() -> locks.holding("a", UploadLocksTest::backendPid))).isEqualTo(pid);
  }

  @Test
  void aKeptSessionThatDiedIsReplacedByANewOne() throws InterruptedException {
    int pid = onLoop(() -> locks.holding("a", UploadLocksTest::backendPid));

    // ended by the server, as a restart of PostgreSQL would, and used before the loop hears of it
    int replaced = onLoop(() -> {
      db.execute("SELECT pg_terminate_backend(" + pid + ")");
      while (db.number("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) > 0) {
        Thread.sleep(10);
      }
      return locks.holding("a", UploadLocksTest::backendPid);
    });

    assertThat(replaced).isNotEqualTo(pid);
    assertThat(heldLocks()).isZero();
    assertThat(sessionsSettledAt(1)).isEqualTo(1);
  }

  @Test
  void aLoopKeepsAtMostItsShareOfSessionsAndClosesTheRest() throws InterruptedException {
    int atOnce = UploadLocks.KEPT_PER_LOOP + 2;
    Promise<Void> release = Promise.promise();
    List<Future<Integer>> held = onLoop(() -> {
      List<Future<Integer>> all = new ArrayList<>();
      for (int i = 0; i < atOnce; i++) {
        all.add(locks.holding("upload-" + i, conn -> release.future().compose(v -> backendPid(conn))));
      }
      return Future.succeededFuture(all);
    });
    assertThat(sessionsSettledAt(atOnce)).isEqualTo(atOnce);

    loop.runOnContext(v -> release.complete());
    Future.all(held).await();

    assertThat(held.stream().map(Future::result).distinct()).hasSize(atOnce);
    assertThat(heldLocks()).isZero();
    assertThat(sessionsSettledAt(UploadLocks.KEPT_PER_LOOP)).isEqualTo(UploadLocks.KEPT_PER_LOOP);
  }

  @Test
  void offAnEventLoopASessionIsOpenedAndClosedEachTime() throws InterruptedException {
    int pid = locks.holding("a", UploadLocksTest::backendPid).await();

    assertThat(pid).isPositive();
    assertThat(heldLocks()).isZero();
    assertThat(sessionsSettledAt(0)).isZero();
  }
}
