package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannelConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cork around a large sendfile, on the native epoll transport the app runs on (Linux x86_64):
 * on while the file goes out, off once it is out (the next answer on the keep-alive connection must
 * not wait for a full segment), never for a small body, and the bytes arrive whole.
 */
class TcpCorkTest {
  @TempDir
  Path dir;
  Vertx vertx;
  HttpServer server;
  WebClient client;
  /** What the server saw per path: corked while sending, corked after. */
  final Map<String, boolean[]> seen = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    assumeTrue(Epoll.isAvailable(), "no native epoll transport on this machine");
    vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    assertThat(vertx.isNativeTransportEnabled()).isTrue();
    server = vertx.createHttpServer().requestHandler(req -> {
      Path file = dir.resolve(req.path().substring(1));
      long size = file.toFile().length();
      boolean[] state = new boolean[2];
      seen.put(req.path(), state);
      TcpCork.around(req.connection(), size, () -> {
        state[0] = corked(req.connection());
        return req.response().sendFile(file.toString());
      }).onComplete(done -> state[1] = corked(req.connection()));
    }).listen(0, "127.0.0.1").await();
    client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
        .setDefaultPort(server.actualPort()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(1));
  }

  @AfterEach
  void stop() {
    if (vertx != null) {
      vertx.close().await();
    }
  }

  static boolean corked(HttpConnection connection) {
    return ((EpollSocketChannelConfig) ((ConnectionBase) connection).channel().config()).isTcpCork();
  }

  Path file(String name, int size) throws Exception {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return Files.write(dir.resolve(name), bytes);
  }

  @Test
  void aLargeFileGoesOutCorkedAndTheCorkComesOffAtTheEnd() throws Exception {
    Path big = file("big.bin", 3 * 1024 * 1024 + 17);
    Path small = file("small.txt", 200);

    HttpResponse<Buffer> first = client.get("/big.bin").send().await();
    // the same keep-alive connection (pool of one) answers the next request
    HttpResponse<Buffer> second = client.get("/small.txt").send().await();

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body().getBytes()).isEqualTo(Files.readAllBytes(big));
    assertThat(seen.get("/big.bin")).containsExactly(true, false);
    assertThat(second.body().getBytes()).isEqualTo(Files.readAllBytes(small));
    assertThat(seen.get("/small.txt")).containsExactly(false, false);
  }

  @Test
  void belowTheThresholdTheSendRunsAsItIs() throws Exception {
    file("just-under.bin", (int) TcpCork.MIN_BYTES - 1);

    HttpResponse<Buffer> r = client.get("/just-under.bin").send().await();

    assertThat(r.body().length()).isEqualTo((int) TcpCork.MIN_BYTES - 1);
    assertThat(seen.get("/just-under.bin")).containsExactly(false, false);
  }

  @Test
  void theCorkComesOffWhenTheSendFails() {
    boolean[] state = new boolean[2];
    server.close().await();
    HttpServer failing = vertx.createHttpServer().requestHandler(req -> TcpCork.around(req.connection(),
        TcpCork.MIN_BYTES, () -> {
          state[0] = corked(req.connection());
          return Future.<Void>failedFuture("disk gone").andThen(x -> req.response().setStatusCode(503).end());
        }).onComplete(done -> state[1] = corked(req.connection()))).listen(0, "127.0.0.1").await();

    HttpResponse<Buffer> r = WebClient.create(vertx).get(failing.actualPort(), "127.0.0.1", "/x").send().await();

    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(state).containsExactly(true, false);
  }
}
