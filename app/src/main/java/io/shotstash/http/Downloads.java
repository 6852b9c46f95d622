package io.shotstash.http;

import io.shotstash.pipeline.contract.ByteRange;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;

/**
 * Streams a stored file, whole or one range, zero-copy from disk (the contract's Range rules, not
 * StaticHandler's: suffix ranges work, several ranges get the whole body). HEAD gets the headers only.
 */
public final class Downloads {
  private Downloads() {}

  /** {@code attachmentName} null: no Content-Disposition. */
  public static Future<Void> send(RoutingContext ctx, Path file, long size, String mimeType, String attachmentName,
      String rangeHeader) {
    HttpServerResponse res = ctx.response();
    res.putHeader("Content-Type", mimeType).putHeader("Accept-Ranges", "bytes");
    if (attachmentName != null) {
      res.putHeader("Content-Disposition", contentDisposition(attachmentName));
    }
    boolean head = ctx.request().method() == HttpMethod.HEAD;
    ByteRange range = ByteRange.parse(rangeHeader, size);
    if (range instanceof ByteRange.Unsatisfiable) {
      return res.setStatusCode(416).putHeader("Content-Range", "bytes */" + size).end();
    }
    if (range instanceof ByteRange.Partial p) {
      res.setStatusCode(206).putHeader("Content-Range", p.contentRange(size));
      if (head) {
        return res.putHeader("Content-Length", Long.toString(p.length())).end();
      }
      return TcpCork.around(ctx.request().connection(), p.length(),
          () -> res.sendFile(file.toString(), p.start(), p.length()));
    }
    res.setStatusCode(200);
    if (head) {
      return res.putHeader("Content-Length", Long.toString(size)).end();
    }
    return TcpCork.around(ctx.request().connection(), size, () -> res.sendFile(file.toString()));
  }

  /** A safe attachment header: an ASCII fallback name and the UTF-8 name (RFC 6266 / 5987). */
  static String contentDisposition(String name) {
    String ascii = name.replaceAll("[^A-Za-z0-9._ -]", "_");
    StringBuilder encoded = new StringBuilder();
    for (byte b : name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
          || c == '_') {
        encoded.append((char) c);
      } else {
        encoded.append('%').append(String.format("%02X", c));
      }
    }
    return "attachment; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
  }
}
