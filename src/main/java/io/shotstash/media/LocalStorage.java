package io.shotstash.media;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.streams.ReadStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.regex.Pattern;

/** {@link Storage} in a local folder (default {@code ./data/media}): {@code originals/}, {@code versions/}, {@code tmp/}. */
public final class LocalStorage implements Storage {
  private static final Pattern KEY =
      Pattern.compile("^(originals|versions|avatars)/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\\.[a-z0-9]{1,10})?$");

  private final Vertx vertx;
  private final Path root;

  public LocalStorage(Vertx vertx, Path root) throws IOException {
    this.vertx = vertx;
    this.root = root.toAbsolutePath().normalize();
    for (String dir : new String[] {"originals", "versions", "avatars", "tmp"}) {
      Files.createDirectories(this.root.resolve(dir));
    }
  }

  @Override
  public Path path(String key) {
    if (key == null || !KEY.matcher(key).matches()) {
      throw new IllegalArgumentException("not a storage key: " + key);
    }
    return root.resolve(key);
  }

  /** Every key under versions/ (for the sweeper's orphan check), with its last-modified time. */
  public Path versionsFolder() {
    return root.resolve("versions");
  }

  @Override
  public Future<Written> write(String key, ReadStream<Buffer> body, long maxBytes) {
    Path target = path(key);
    Path temp = root.resolve("tmp").resolve(UUID.randomUUID().toString());
    return vertx.fileSystem().open(temp.toString(), new OpenOptions().setWrite(true).setCreateNew(true))
        .compose(file -> pump(body, file, maxBytes)
            .compose(size -> file.close().map(size))
            .recover(err -> file.close().transform(x -> Future.<Long>failedFuture(err))))
        .compose(size -> vertx.executeBlocking(() -> {
          Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          return new Written(key, size);
        }, false))
        .recover(err -> vertx.fileSystem().delete(temp.toString()).otherwiseEmpty()
            .compose(x -> Future.failedFuture(err)));
  }

  /**
   * A small declared body is collected (never more than it declared) and written to a temporary
   * file and renamed into place in one blocking call: one hand-off to a worker thread instead of
   * one each for open, write, close and rename.
   */
  @Override
  public Future<Written> write(String key, ReadStream<Buffer> body, long maxBytes, long declaredBytes) {
    if (declaredBytes <= 0 || declaredBytes > SMALL_BODY_BYTES || declaredBytes > maxBytes) {
      return write(key, body, maxBytes);
    }
    Path target = path(key);
    Path temp = root.resolve("tmp").resolve(UUID.randomUUID().toString());
    // unordered: writes of different uploads are independent (their own temporary and final names),
    // so concurrent ones from the same verticle need not queue behind each other on the worker pool
    return collect(body, declaredBytes).compose(bytes -> vertx.executeBlocking(() -> {
      try {
        Files.write(temp, bytes.getBytes(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(temp);
        throw e;
      }
      return new Written(key, bytes.length());
    }, false));
  }

  /** The whole body, failing if it is longer than {@code declared}. */
  private static Future<Buffer> collect(ReadStream<Buffer> body, long declared) {
    Promise<Buffer> done = Promise.promise();
    Buffer all = Buffer.buffer((int) declared);
    body.exceptionHandler(done::tryFail);
    body.handler(chunk -> {
      if (done.future().isComplete()) {
        return; // failed already (the client went away): bytes still buffered are dropped
      }
      if (all.length() + chunk.length() > declared) {
        body.handler(null);
        done.tryFail(new IllegalStateException("the body is longer than the " + declared + " bytes it declared"));
        return;
      }
      all.appendBuffer(chunk);
    });
    body.endHandler(v -> done.tryComplete(all));
    body.resume();
    return done.future();
  }

  /** Copies the body into the file with back-pressure, counting bytes and stopping past the limit. */
  private Future<Long> pump(ReadStream<Buffer> body, AsyncFile file, long maxBytes) {
    Promise<Long> done = Promise.promise();
    long[] size = {0};
    body.exceptionHandler(done::tryFail);
    body.handler(chunk -> {
      if (done.future().isComplete()) {
        return; // failed already (the client went away, the file is closing): never write to it
      }
      size[0] += chunk.length();
      if (size[0] > maxBytes) {
        body.handler(null);
        done.tryFail(new TooLargeException());
        return;
      }
      file.write(chunk);
      if (file.writeQueueFull()) {
        body.pause();
        file.drainHandler(v -> body.resume());
      }
    });
    body.endHandler(v -> done.tryComplete(size[0]));
    file.exceptionHandler(done::tryFail);
    body.resume();
    return done.future();
  }

  @Override
  public Future<Boolean> exists(String key) {
    return vertx.fileSystem().exists(path(key).toString());
  }

  @Override
  public Future<Void> delete(String key) {
    String p = path(key).toString();
    return vertx.fileSystem().exists(p).compose(e -> e ? vertx.fileSystem().delete(p) : Future.succeededFuture());
  }
}
