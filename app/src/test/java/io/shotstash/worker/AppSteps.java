package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.testing.Folders;
import io.shotstash.testing.TestApp;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** What the real-app tests do as a person: upload, queue a proxy, wait for the job, download the version. */
final class AppSteps {
  private AppSteps() {}

  /** POST /api/v1/files with the raw bytes, into a new folder (an upload needs one); answers the file id. */
  static String upload(TestApp app, String session, Path input, String name) throws IOException {
    String folder = Folders.create(app.client(), session, "footage");
    HttpResponse<Buffer> r = app.client().post("/api/v1/files").bearerTokenAuthentication(session)
        .addQueryParam("folderId", folder).putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", name)
        .sendBuffer(Buffer.buffer(Files.readAllBytes(input))).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getJsonObject("data").getString("id");
  }

  /** Queues {@code shotstash/proxy-720p} on the file; answers the job view. */
  static JsonObject enqueueProxy(TestApp app, String fileId) {
    return Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.ENQUEUE,
        new JsonObject().put("fileId", fileId).put("kind", WorkerLoop.KIND)).await();
  }

  /** GET /media/p/:versionId into {@code target}. */
  static Path downloadVersion(TestApp app, String session, String versionId, Path target) throws IOException {
    HttpResponse<Buffer> r =
        app.client().get("/media/p/" + versionId).bearerTokenAuthentication(session).send().await();
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.getHeader("Content-Type")).startsWith("video/mp4");
    Files.write(target, r.body().getBytes());
    return target;
  }

  /** Polls the job view on a Vert.x timer until the job is final, for at most {@code limit}. */
  static JsonObject awaitFinal(Vertx vertx, String jobId, Duration limit) throws Exception {
    Promise<JsonObject> done = Promise.promise();
    long deadline = System.nanoTime() + limit.toNanos();
    long timer = vertx.setPeriodic(100, id -> Requests.ask(vertx, Addresses.PIPELINE_QUEUE, QueueActions.JOB,
        new JsonObject().put("jobId", jobId)).onSuccess(view -> {
          String status = view.getString("status");
          if ("done".equals(status) || "failed".equals(status) || "cancelled".equals(status)) {
            done.tryComplete(view);
          } else if (System.nanoTime() > deadline) {
            done.tryFail("job " + jobId + " is still " + status + ": " + view.encode());
          }
        }));
    Future<JsonObject> f = done.future().onComplete(ar -> vertx.cancelTimer(timer));
    return f.await(limit.toSeconds() + 10, TimeUnit.SECONDS);
  }
}
