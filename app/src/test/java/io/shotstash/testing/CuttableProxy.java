package io.shotstash.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback between a client and the app, whose connections a test can cut at any
 * moment ({@link #cut()}): what a dropped Wi-Fi or a restarted router does to an upload. New
 * connections are taken after a cut, as a network that comes back. Plain threads, no Vert.x, so
 * the cut is independent of both ends.
 */
public final class CuttableProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final AtomicLong upstreamBytes = new AtomicLong();
  private volatile boolean closed;
  /** The armed tripwire ({@link #cutInside}): null when none. */
  private byte[] marker;
  /** Bytes still to pass once the marker was seen; -1 before it was. */
  private long left = -1;
  /** The bytes that pass from the marker's first on before the cut. */
  private long afterMarker;
  private final AtomicLong trips = new AtomicLong();
  /** Bytes a second each client's upstream may send; 0 = as fast as it goes. */
  private volatile long upstreamRate;

  /** A proxy to 127.0.0.1:{@code targetPort} on a free loopback port. */
  public CuttableProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "cuttable-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Bytes clients sent through the proxy so far (to cut in the middle of an upload). */
  public long upstreamBytes() {
    return upstreamBytes.get();
  }

  /**
   * Arms a one-time cut inside a request: once a client sends {@code marker} (the start of a request
   * line, e.g. {@code "PATCH "}), {@code bytes} more bytes counted from the marker's first pass, and
   * then every connection is cut, as a network that drops in the middle of that request. The marker
   * must arrive within one read (a request line does).
   */
  public synchronized void cutInside(String marker, long bytes) {
    this.marker = marker.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    this.left = -1;
    this.afterMarker = bytes;
  }

  /** How many armed cuts ({@link #cutInside}) have happened. */
  public long trips() {
    return trips.get();
  }

  /** How many of {@code n} read bytes may pass now; fewer means: pass them, then cut. */
  private synchronized int passable(byte[] buf, int n) {
    if (marker == null) {
      return n;
    }
    int from = 0;
    if (left < 0) {
      int at = indexOf(buf, n, marker);
      if (at < 0) {
        return n;
      }
      left = afterMarker;
      from = at;
    }
    if (n - from >= left) {
      int pass = (int) (from + left);
      marker = null;
      left = -1;
      trips.incrementAndGet();
      return pass == n ? n - 1 : pass; // always keep at least one byte back, so the cut follows
    }
    left -= n - from;
    return n;
  }

  private static int indexOf(byte[] buf, int n, byte[] what) {
    outer : for (int i = 0; i + what.length <= n; i++) {
      for (int j = 0; j < what.length; j++) {
        if (buf[i + j] != what[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * Slows what clients send to {@code bytesPerSecond} per connection (0: no limit), so an upload
   * through a browser on loopback lasts long enough to be cut or paused in its middle.
   */
  public void throttle(long bytesPerSecond) {
    upstreamRate = bytesPerSecond;
  }

  /** Closes every connection open now, both sides. */
  public void cut() {
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pump(client, upstream, true);
        pump(upstream, client, false);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, boolean counted) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[64 << 10];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          int pass = counted ? passable(buf, n) : n;
          out.write(buf, 0, pass);
          if (counted) {
            upstreamBytes.addAndGet(pass);
            long rate = upstreamRate;
            if (rate > 0) {
              Thread.sleep(Math.max(1, pass * 1000L / rate));
            }
          }
          if (pass < n) {
            out.flush();
            cut();
            return;
          }
        }
      } catch (IOException e) {
        // cut, or one side went away: close both
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "cuttable-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.setSoLinger(true, 0); // a reset, as a dropped network shows up to the peer that writes next
    } catch (IOException e) {
      // closed already
    }
    try {
      s.close();
    } catch (IOException e) {
      // closed already
    }
  }

  @Override
  public void close() {
    closed = true;
    cut();
    try {
      server.close();
    } catch (IOException e) {
      // closed already
    }
  }
}
