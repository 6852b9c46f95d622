package io.shotstash.http.community;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Avatars: uploaded raw by the person (or staff), served publicly, replaced and purged with the person. */
class AvatarTest {
  static TestApp app;
  static WebClient http;
  static String admin;
  static final Buffer PNG =
      Buffer.buffer(new byte[]{(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H'});

  @BeforeAll
  static void start() {
    app = TestApp.start();
    http = app.client();
    admin = app.setupAndLogin();
    app.createPerson(admin, "pia", "user", "pia password 123");
    app.createPerson(admin, "quin", "user", "quin password 123");
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  static HttpResponse<Buffer> put(String slug, String token, String type, Buffer body) {
    return http.put("/api/people/" + slug + "/avatar").bearerTokenAuthentication(token).putHeader("Content-Type", type)
        .sendBuffer(body).await();
  }

  static Path stored(String avatarUrl) {
    return app.dataDir().resolve("media/avatars").resolve(avatarUrl.substring(avatarUrl.lastIndexOf('/') + 1));
  }

  @Test
  void aPersonSetsReplacesAndRemovesTheirAvatar() {
    String pia = app.login("pia", "pia password 123");
    HttpResponse<Buffer> first = put("pia", pia, "image/png", PNG);
    assertThat(first.statusCode()).as(first.bodyAsString()).isEqualTo(200);
    String url = first.bodyAsJsonObject().getJsonObject("data").getString("avatarUrl");
    assertThat(url).startsWith("/media/avatars/").endsWith(".png");
    HttpResponse<Buffer> served = http.get(url).send().await();
    assertThat(served.statusCode()).isEqualTo(200);
    assertThat(served.getHeader("Content-Type")).isEqualTo("image/png");
    assertThat(served.body()).isEqualTo(PNG);

    HttpResponse<Buffer> second =
        put("pia", pia, "image/jpeg", Buffer.buffer(new byte[]{(byte) 0xFF, (byte) 0xD8, 1, 2}));
    String url2 = second.bodyAsJsonObject().getJsonObject("data").getString("avatarUrl");
    assertThat(url2).endsWith(".jpg").isNotEqualTo(url);
    assertThat(http.get(url).send().await().statusCode()).isEqualTo(404);
    awaitGone(stored(url));

    HttpResponse<Buffer> removed = http.delete("/api/people/pia/avatar").bearerTokenAuthentication(pia).send().await();
    assertThat(removed.statusCode()).isEqualTo(200);
    assertThat(removed.bodyAsJsonObject().getJsonObject("data").getString("avatarUrl")).isNull();
    awaitGone(stored(url2));
  }

  @Test
  void refusalsKeepNothing() throws Exception {
    String quin = app.login("quin", "quin password 123");
    long before;
    try (var files = Files.list(app.dataDir().resolve("media/avatars"))) {
      before = files.count();
    }
    HttpResponse<Buffer> wrongType = put("quin", quin, "text/plain", Buffer.buffer("hi"));
    assertThat(wrongType.statusCode()).isEqualTo(422);
    HttpResponse<Buffer> notMine = put("pia", quin, "image/png", PNG);
    assertThat(notMine.statusCode()).isEqualTo(404);
    HttpResponse<Buffer> tooBig = put("quin", quin, "image/png", Buffer.buffer(new byte[3 * 1024 * 1024]));
    assertThat(tooBig.statusCode()).isIn(413, -1);
    try (var files = Files.list(app.dataDir().resolve("media/avatars"))) {
      assertThat(files.count()).isEqualTo(before);
    }
  }

  @Test
  void aPurgeTakesTheAvatarWithThePerson() {
    String rex = app.createAndLogin(admin, "rex", "user", "rex password 123");
    String url = put("rex", rex, "image/png", PNG).bodyAsJsonObject().getJsonObject("data").getString("avatarUrl");
    HttpResponse<Buffer> purge = http.post("/api/people/rex/purge").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("reason", "test purge").put("spam", false)).await();
    assertThat(purge.statusCode()).as(purge.bodyAsString()).isEqualTo(200);
    assertThat(http.get(url).send().await().statusCode()).isEqualTo(404);
    awaitGone(stored(url));
  }

  @Test
  void aCookieCallerUploadsOnlyFromThisSite() {
    String token = app.login("quin", "quin password 123");
    String cookie = "shotstash_session=" + token;
    HttpResponse<Buffer> noOrigin = http.put("/api/people/quin/avatar").putHeader("Cookie", cookie)
        .putHeader("Content-Type", "image/png").sendBuffer(PNG).await();
    assertThat(noOrigin.statusCode()).isEqualTo(403);
    HttpResponse<Buffer> elsewhere = http.put("/api/people/quin/avatar").putHeader("Cookie", cookie)
        .putHeader("Origin", "https://evil.example").putHeader("Content-Type", "image/png").sendBuffer(PNG).await();
    assertThat(elsewhere.statusCode()).isEqualTo(403);
    HttpResponse<Buffer> here = http.put("/api/people/quin/avatar").putHeader("Cookie", cookie)
        .putHeader("Origin", "http://127.0.0.1:" + app.port()).putHeader("Content-Type", "image/png").sendBuffer(PNG)
        .await();
    assertThat(here.statusCode()).as(here.bodyAsString()).isEqualTo(200);
  }

  /** The file is deleted just after the answer; look again for a while (bounded). */
  static void awaitGone(Path file) {
    for (int i = 0; i < 200 && Files.exists(file); i++) {
      app.vertx().timer(25).await();
    }
    assertThat(file).doesNotExist();
  }
}
