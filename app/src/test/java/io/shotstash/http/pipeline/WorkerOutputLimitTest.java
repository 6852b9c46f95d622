package io.shotstash.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.pipeline.contract.OutputRules;
import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.ContractWorker.Answer;
import io.shotstash.testing.ContractWorker.Claimed;
import io.shotstash.testing.Folders;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The output size limit (SHOTSTASH_PIPELINE_MAX_OUTPUT_MB, here 1 MB): refused from Content-Length
 * before any byte is read, refused while streaming a chunked body, and in both cases nothing is
 * left in storage and the claim still holds.
 */
class WorkerOutputLimitTest extends WithSignedInApp {
  static final String BOOT = "worker-output-limit-bootstrap-token-0123";
  static final long LIMIT = 1024L * 1024L;
  static final AtomicInteger COUNTER = new AtomicInteger();

  /** The folder every upload goes to (an upload needs one). */
  static String folder;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOT, "SHOTSTASH_PIPELINE_MAX_OUTPUT_MB", "1"));
    folder = Folders.create(app.client(), admin, "inputs");
  }

  static Claimed claimed(String base) {
    return Claimed.fresh(app, BOOT, admin, folder, base + "-" + COUNTER.incrementAndGet());
  }

  static List<Path> list(String folder) throws IOException {
    try (Stream<Path> files = Files.list(app.dataDir().resolve("media").resolve(folder))) {
      return files.toList();
    }
  }

  static void assertRefusal(Answer a, int status, String code) {
    assertThat(a.status()).as(a.toString()).isEqualTo(status);
    assertThat(a.header("X-Shotstash-Pipeline")).isEqualTo("1");
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(a.json().fieldNames()).containsExactlyInAnyOrder("code", "message");
    assertThat(a.code()).isEqualTo(code);
  }

  static Path fileOf(long size) throws IOException {
    Path p = Files.createTempFile("output-", ".bin");
    byte[] chunk = new byte[64 * 1024];
    for (int i = 0; i < chunk.length; i++) {
      chunk[i] = (byte) i;
    }
    try (var out = Files.newOutputStream(p)) {
      for (long written = 0; written < size; written += chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, size - written));
      }
    }
    return p;
  }

  /** The claim's output streamed from {@code source} (a chunked body), the file closed after. */
  static Answer outputFrom(Path source, Claimed c, String contentType, String ext) {
    AsyncFile body = app.vertx().fileSystem().open(source.toString(), new OpenOptions().setRead(true)).await();
    try {
      return c.worker().outputStream(c.id(), c.claim(), contentType, ext, body);
    } finally {
      body.close().otherwiseEmpty().await();
    }
  }

  @Test
  void aDeclaredLengthOverTheLimitIsRefusedBeforeTheBody() throws IOException {
    Claimed c = claimed("declared");
    List<Path> versions = list("versions");
    Answer a = c.worker().outputHeadOnly(c.id(), c.claim(), "video/mp4", "mp4", LIMIT + 1);
    assertRefusal(a, 413, "OUTPUT_TOO_LARGE");
    assertThat(list("versions")).isSubsetOf(versions);
    assertThat(list("tmp")).isEmpty();

    Answer huge = c.worker().outputHeadOnly(c.id(), c.claim(), "video/mp4", "mp4", 50L * 1024 * 1024 * 1024);
    assertRefusal(huge, 413, "OUTPUT_TOO_LARGE");

    // the claim still holds, without an output
    assertRefusal(c.worker().complete(c.id(), c.claim()), 409, "OUTPUT_MISSING");
    assertThat(c.worker().progress(c.id(), c.claim(), 1).status()).isEqualTo(200);
  }

  @Test
  void aStaleClaimWithABodyOver64KiBIsRefusedBeforeAnyByteIsSent() throws IOException {
    Claimed c = claimed("stale-large");
    List<Path> versions = list("versions");
    // headers only: the answer must come without the body (the claim is checked first)
    Answer a = c.worker().outputHeadOnly(c.id(), "not-the-claim-token", "video/mp4", "mp4",
        OutputRules.CLAIM_CHECKED_AFTER_MAX_BYTES + 1);
    assertRefusal(a, 409, "CLAIM_STALE");
    assertThat(list("versions")).isSubsetOf(versions);
    assertThat(list("tmp")).isEmpty();
  }

  @Test
  void aStaleClaimWithASmallBodyIsRefusedOnceItIsInAndNothingIsKept() throws IOException {
    Claimed c = claimed("stale-small");
    List<Path> versions = list("versions");
    byte[] body = new byte[(int) OutputRules.CLAIM_CHECKED_AFTER_MAX_BYTES];
    body[0] = 7;
    assertRefusal(c.worker().output(c.id(), "not-the-claim-token", "video/mp4", "mp4", Buffer.buffer(body)), 409,
        "CLAIM_STALE");
    assertThat(list("versions")).isSubsetOf(versions);
    assertThat(list("tmp")).isEmpty();
    // the holder's own small output is taken and recorded (its lease moved with it)
    Answer ok = c.worker().output(c.id(), c.claim(), "video/mp4", "mp4", Buffer.buffer(body));
    assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
    assertThat(app.dataDir().resolve("media/versions/" + ok.json().getString("versionId") + ".mp4"))
        .hasBinaryContent(body);
  }

  /** What a client that sends {@code Expect: 100-continue} saw: the answer, and whether it was asked for the body. */
  record Expecting(int status, JsonObject body, boolean continued) {}

  /** PUT output with Expect: 100-continue; sends {@code body} only when the app answers 100 Continue. */
  static Expecting putExpectingContinue(Claimed c, String claimToken, long declaredLength, Buffer body) {
    HttpClientAgent http = app.vertx().createHttpClient();
    try {
      HttpClientRequest req = http.request(HttpMethod.PUT, app.port(), "127.0.0.1",
          ContractWorker.BASE + "/jobs/" + c.id() + "/output").await();
      req.putHeader("X-Worker-Token", c.worker().token()).putHeader("X-Claim-Token", claimToken)
          .putHeader("Content-Type", "video/mp4").putHeader("X-Output-Ext", "mp4")
          .putHeader("Content-Length", Long.toString(declaredLength)).putHeader("Expect", "100-continue");
      AtomicBoolean continued = new AtomicBoolean();
      req.continueHandler(v -> {
        continued.set(true);
        req.end(body);
      });
      req.exceptionHandler(err -> {});
      Future<Expecting> answer = req.response().compose(res -> res.body()
          .map(b -> new Expecting(res.statusCode(), b.length() == 0 ? null : b.toJsonObject(), continued.get())));
      req.sendHead().await();
      Expecting e = answer.await();
      req.reset();
      return e;
    } finally {
      http.close().await();
    }
  }

  @Test
  void aClientWaitingFor100ContinueIsAskedForTheBodyOnlyWhenTheUploadWillBeTaken() throws IOException {
    Claimed c = claimed("continue");
    List<Path> versions = list("versions");
    Expecting tooLarge = putExpectingContinue(c, c.claim(), LIMIT + 1, Buffer.buffer(new byte[10]));
    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(tooLarge.body().getString("code")).isEqualTo("OUTPUT_TOO_LARGE");
    assertThat(tooLarge.continued()).isFalse();

    Expecting stale = putExpectingContinue(c, "not-the-claim-token", 5, Buffer.buffer("hello"));
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.body().getString("code")).isEqualTo("CLAIM_STALE");
    assertThat(stale.continued()).isFalse();
    assertThat(list("versions")).isSubsetOf(versions);

    Expecting taken = putExpectingContinue(c, c.claim(), 5, Buffer.buffer("hello"));
    assertThat(taken.continued()).isTrue();
    assertThat(taken.status()).as("%s", taken.body()).isEqualTo(200);
    assertThat(taken.body().getLong("size")).isEqualTo(5L);
    assertThat(app.dataDir().resolve("media/versions/" + taken.body().getString("versionId") + ".mp4"))
        .hasContent("hello");
  }

  @Test
  void anOutputOfExactlyTheLimitIsAccepted() {
    Claimed c = claimed("exact");
    byte[] bytes = new byte[(int) LIMIT];
    bytes[0] = 1;
    bytes[bytes.length - 1] = 2;
    Answer a = c.worker().output(c.id(), c.claim(), "video/mp4", "mp4", Buffer.buffer(bytes));
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    assertThat(a.json().getLong("size")).isEqualTo(LIMIT);
    assertThat(app.dataDir().resolve("media/versions/" + a.json().getString("versionId") + ".mp4")).hasSize(LIMIT);
  }

  @Test
  void aChunkedBodyOverTheLimitIsRefusedWhileStreamingAndNothingIsKept() throws IOException {
    Claimed c = claimed("chunked");
    List<Path> versions = list("versions");
    Path source = fileOf(LIMIT + 256 * 1024);
    AsyncFile file = app.vertx().fileSystem().open(source.toString(), new OpenOptions().setRead(true)).await();
    Ending body = new Ending(file);
    try {
      // the refusal comes while the body is still being sent, and is read: the app reads the rest
      // and drops it before it closes the connection (LingeringClose)
      Answer refused = c.worker().outputStream(c.id(), c.claim(), "video/mp4", "mp4", body);
      assertRefusal(refused, 413, "OUTPUT_TOO_LARGE");
      assertThat(refused.header("Connection")).isEqualTo("close");
      assertThat(list("versions")).isSubsetOf(versions);
      assertThat(list("tmp")).isEmpty();
      assertRefusal(c.worker().complete(c.id(), c.claim()), 409, "OUTPUT_MISSING");

      // the claim still holds: a smaller output goes through
      Answer ok = c.worker().output(c.id(), c.claim(), "video/mp4", "mp4", Buffer.buffer("small"));
      assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
    } finally {
      // the client sends the rest of the file after the answer: closing the file before would reset
      // the request, and Vert.x's client then puts that connection back in its pool although the
      // answer said Connection: close; the next test's call would go out on it and be lost
      body.ended().timeout(30, TimeUnit.SECONDS).otherwiseEmpty().await();
      file.close().otherwiseEmpty().await();
      Files.deleteIfExists(source);
    }
  }

  /** A stream's bytes, saying when it has given them all. */
  static final class Ending implements ReadStream<Buffer> {
    private final ReadStream<Buffer> source;
    private final Promise<Void> ended = Promise.promise();

    Ending(ReadStream<Buffer> source) {
      this.source = source;
    }

    Future<Void> ended() {
      return ended.future();
    }

    @Override
    public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
      source.exceptionHandler(handler);
      return this;
    }

    @Override
    public ReadStream<Buffer> handler(Handler<Buffer> handler) {
      source.handler(handler);
      return this;
    }

    @Override
    public ReadStream<Buffer> pause() {
      source.pause();
      return this;
    }

    @Override
    public ReadStream<Buffer> resume() {
      source.resume();
      return this;
    }

    @Override
    public ReadStream<Buffer> fetch(long amount) {
      source.fetch(amount);
      return this;
    }

    @Override
    public ReadStream<Buffer> endHandler(Handler<Void> handler) {
      source.endHandler(handler == null ? null : v -> {
        handler.handle(v);
        ended.tryComplete();
      });
      return this;
    }
  }

  @Test
  void anEmptyChunkedBodyIsInvalidAndNothingIsKept() throws IOException {
    Claimed c = claimed("chunked-empty");
    List<Path> versions = list("versions");
    Path source = fileOf(0);
    Answer a;
    try {
      a = outputFrom(source, c, "text/plain", "txt");
    } finally {
      Files.deleteIfExists(source);
    }
    assertRefusal(a, 400, "INVALID_OUTPUT");
    assertThat(list("versions")).isSubsetOf(versions);
    assertThat(list("tmp")).isEmpty();
    assertRefusal(c.worker().complete(c.id(), c.claim()), 409, "OUTPUT_MISSING");
  }

  @Test
  void aChunkedBodyWithinTheLimitIsStored() throws IOException {
    Claimed c = claimed("chunked-ok");
    long size = 300 * 1024 + 7;
    Path source = fileOf(size);
    Answer a = outputFrom(source, c, "application/pdf", "PDF");
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    assertThat(a.json().getLong("size")).isEqualTo(size);
    Path stored = app.dataDir().resolve("media/versions/" + a.json().getString("versionId") + ".pdf");
    assertThat(stored).hasSameBinaryContentAs(source);
    Files.deleteIfExists(source);
    Answer done = c.worker().complete(c.id(), c.claim());
    assertThat(done.status()).as(done.toString()).isEqualTo(200);
  }
}
