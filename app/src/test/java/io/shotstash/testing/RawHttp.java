package io.shotstash.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 by hand over a plain socket, for requests no HTTP client will send: no Host header, a
 * malformed Content-Length, raw UTF-8 bytes in a header, a body cut off halfway. Blocking; use it
 * from the test thread.
 */
public final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** One response: status, headers (lower-case names) and body. */
  public record Response(int status, Map<String, String> headers, byte[] body) {
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return status + " " + headers + " " + text();
    }
  }

  public RawHttp(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  /** Sends a whole request (head and body) and reads one response. */
  public static Response exchange(int port, byte[] request) throws IOException {
    try (RawHttp http = new RawHttp(port)) {
      http.send(request);
      return http.read();
    }
  }

  public static Response exchange(int port, String request) throws IOException {
    return exchange(port, request.getBytes(StandardCharsets.UTF_8));
  }

  public RawHttp send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  public RawHttp send(String text) throws IOException {
    return send(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Reads one response: the head, then a Content-Length body (or everything until the server closes). */
  public Response read() throws IOException {
    String head = readHead();
    String[] lines = head.split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
      }
    }
    if (status == 100) {
      return new Response(status, headers, new byte[0]);
    }
    String length = headers.get("content-length");
    byte[] body = length != null ? in.readNBytes(Integer.parseInt(length)) : in.readAllBytes();
    return new Response(status, headers, body);
  }

  private String readHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("the server closed the connection after " + head.size() + " bytes: " + head);
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * Whether the server closes the connection within {@code millis}: reads (and drops) anything
   * more it sends until then.
   */
  public boolean closedWithin(int millis) throws IOException {
    socket.setSoTimeout(millis);
    try {
      while (in.read() >= 0) {
        // nothing more is expected; keep reading to the end
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset: closed as well
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
