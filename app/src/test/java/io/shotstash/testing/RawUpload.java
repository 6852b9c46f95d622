package io.shotstash.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An upload over a plain socket, for refusals that come while the body is still being sent (a full
 * disk). One thread streams the body (zeros, 64 KiB at a time, never held whole) while the test
 * thread reads the answer. An HTTP client library may lose an early answer: when the server closes
 * the connection after refusing (the worker contract does), its next write fails and it drops the
 * connection with the answer still unread. Here the reading side never depends on the writing side,
 * and Linux hands out data that arrived before a reset, so the answer is always read.
 */
public final class RawUpload {
  private static final int CHUNK = 64 * 1024;

  private RawUpload() {}

  /** The answer: status, headers (names in lower case) and the body as text. */
  public record Answer(int status, Map<String, String> headers, String body) {
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /**
   * Sends {@code method path} with {@code headers}, {@code Content-Length: bodyBytes} and that many
   * zero bytes; answers what the server answered, whether or not it read the whole body.
   */
  public static Answer send(int port, String method, String path, Map<String, String> headers, long bodyBytes)
      throws IOException, InterruptedException {
    Socket socket = new Socket();
    Thread writer = null;
    try {
      socket.connect(new InetSocketAddress("127.0.0.1", port));
      // only so that a broken app fails the test instead of hanging it; no assertion on time
      socket.setSoTimeout(120_000);
      StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
      headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
      head.append("Content-Length: ").append(bodyBytes).append("\r\n\r\n");
      OutputStream out = socket.getOutputStream();
      writer = new Thread(() -> {
        byte[] zeros = new byte[CHUNK];
        try {
          out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
          for (long sent = 0; sent < bodyBytes; sent += CHUNK) {
            out.write(zeros, 0, (int) Math.min(CHUNK, bodyBytes - sent));
          }
          out.flush();
        } catch (IOException e) {
          // the server refused and closed, or the test closed the socket after reading the answer
        }
      }, "raw-upload-body");
      writer.setDaemon(true);
      writer.start();
      return read(new BufferedInputStream(socket.getInputStream()));
    } finally {
      socket.close(); // stops the writer if the server is still taking (or dropping) the body
      if (writer != null) {
        writer.join();
      }
    }
  }

  private static Answer read(InputStream in) throws IOException {
    String statusLine = line(in);
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP answer: " + statusLine);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = line(in); !line.isEmpty(); line = line(in)) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
    }
    String length = headers.get("content-length");
    if (length == null) {
      throw new IOException("the answer has no Content-Length: " + headers);
    }
    byte[] body = in.readNBytes(Integer.parseInt(length));
    return new Answer(Integer.parseInt(parts[1]), headers, new String(body, StandardCharsets.UTF_8));
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("the connection closed in the middle of the answer's head");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }
}
