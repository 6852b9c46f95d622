package io.shotstash.http;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * This site's origin as browsers see it, which behind a TLS-terminating proxy is not what the app
 * sees (plain HTTP from the proxy). Either the operator names it ({@code SHOTSTASH_PUBLIC_ORIGIN}),
 * or the proxies the app trusts ({@code SHOTSTASH_TRUSTED_PROXIES}) say which scheme the browser
 * used in {@code X-Forwarded-Proto}; that header from anyone else is ignored, since any client
 * can send it. The session cookie is {@code Secure} when the browser's scheme is https, and the
 * same-origin checks (uploads, sign-in, WebSockets) compare a browser's {@code Origin} with it.
 *
 * <p>Pure: no Vert.x types; the HTTP layer passes in what the request carries.
 */
public final class SiteOrigin {
  /** {@code scheme://host[:port]}, nothing else: no user, path, query or fragment. */
  private static final Pattern ORIGIN = Pattern.compile("(?i)https?://[a-z0-9.\\-\\[\\]:]+");
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

  private final String publicOrigin;
  private final List<Range> proxies;

  /** An address range: the address's bytes and how many leading bits must match. */
  private record Range(byte[] address, int bits) {
    boolean contains(byte[] other) {
      if (other.length != address.length) {
        return false;
      }
      for (int i = 0; i < bits; i++) {
        int mask = 0x80 >> (i % 8);
        if ((address[i / 8] & mask) != (other[i / 8] & mask)) {
          return false;
        }
      }
      return true;
    }
  }

  /** {@code publicOrigin} as {@link #normalizeOrigin} made it (or null); proxies as {@link #proxyProblem} accepts them. */
  public SiteOrigin(String publicOrigin, List<String> trustedProxies) {
    this.publicOrigin = publicOrigin;
    List<Range> ranges = new ArrayList<>();
    for (String entry : trustedProxies) {
      Range r = range(entry);
      if (r == null) {
        throw new IllegalArgumentException("not an address or a range: " + entry);
      }
      ranges.add(r);
    }
    this.proxies = List.copyOf(ranges);
  }

  /** No public origin, no trusted proxy: the scheme and host the request itself carries. */
  public static SiteOrigin direct() {
    return new SiteOrigin(null, List.of());
  }

  // ---- settings ----

  /** Why {@code raw} is not a usable public origin, or null when it is. */
  public static String originProblem(String raw) {
    if (raw == null || !ORIGIN.matcher(raw.strip().replaceAll("/+$", "")).matches()) {
      return "must be http:// or https:// and a host (and port), without a path, e.g. https://media.example.org";
    }
    try {
      URI uri = new URI(normalizeOrigin(raw));
      if (uri.getHost() == null || uri.getRawUserInfo() != null) {
        return "must name a host, e.g. https://media.example.org";
      }
    } catch (URISyntaxException e) {
      return "must name a host, e.g. https://media.example.org";
    }
    return null;
  }

  /** Lower case, no trailing slash, no default port: the form browsers send in {@code Origin}. */
  public static String normalizeOrigin(String raw) {
    String origin = raw.strip().replaceAll("/+$", "").toLowerCase(Locale.ROOT);
    if (origin.startsWith("https://") && origin.endsWith(":443")) {
      return origin.substring(0, origin.length() - 4);
    }
    if (origin.startsWith("http://") && origin.endsWith(":80")) {
      return origin.substring(0, origin.length() - 3);
    }
    return origin;
  }

  /** Why {@code entry} is not an IP address or a CIDR range (literals only: no name is looked up), or null. */
  public static String proxyProblem(String entry) {
    return range(entry) == null ? "must be an IP address or a range such as 10.0.0.0/8, got '" + entry + "'" : null;
  }

  private static Range range(String entry) {
    String text = entry == null ? "" : entry.strip();
    int slash = text.indexOf('/');
    byte[] address = literal(slash < 0 ? text : text.substring(0, slash));
    if (address == null) {
      return null;
    }
    int bits = address.length * 8;
    if (slash >= 0) {
      String prefix = text.substring(slash + 1);
      if (!prefix.matches("\\d{1,3}") || Integer.parseInt(prefix) > bits) {
        return null;
      }
      bits = Integer.parseInt(prefix);
    }
    return new Range(address, bits);
  }

  /** The bytes of an IP literal; null for anything else (never a DNS lookup: only literal shapes get parsed). */
  private static byte[] literal(String text) {
    boolean v4 = IPV4.matcher(text).matches();
    if (!v4 && !IPV6.matcher(text).matches()) {
      return null;
    }
    if (v4) {
      for (String part : text.split("\\.")) {
        if (Integer.parseInt(part) > 255) {
          return null;
        }
      }
    }
    try {
      return InetAddress.getByName(text).getAddress();
    } catch (UnknownHostException e) {
      return null;
    }
  }

  // ---- per request ----

  public String publicOrigin() {
    return publicOrigin;
  }

  /** Whether the TCP peer is one of the trusted proxies. */
  public boolean trusted(String peerAddress) {
    if (peerAddress == null || proxies.isEmpty()) {
      return false;
    }
    byte[] peer =
        literal(peerAddress.startsWith("[") ? peerAddress.substring(1, peerAddress.length() - 1) : peerAddress);
    if (peer == null) {
      return false;
    }
    if (peer.length == 16 && isV4Mapped(peer)) {
      byte[] v4 = new byte[4];
      System.arraycopy(peer, 12, v4, 0, 4);
      peer = v4;
    }
    for (Range r : proxies) {
      if (r.contains(peer)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isV4Mapped(byte[] a) {
    for (int i = 0; i < 10; i++) {
      if (a[i] != 0) {
        return false;
      }
    }
    return (a[10] & 0xff) == 0xff && (a[11] & 0xff) == 0xff;
  }

  /**
   * The scheme the browser used: https on a TLS connection to us; else what a trusted proxy says
   * in {@code X-Forwarded-Proto} (its first value, http or https); else http.
   */
  public String scheme(boolean tls, String peerAddress, String forwardedProto) {
    if (tls) {
      return "https";
    }
    if (forwardedProto != null && trusted(peerAddress)) {
      String proto = forwardedProto.split(",", 2)[0].strip().toLowerCase(Locale.ROOT);
      if (proto.equals("https") || proto.equals("http")) {
        return proto;
      }
    }
    return "http";
  }

  /** The site's origin: the public origin when set, else {@code scheme://host} (null without a host). */
  public String origin(String scheme, String host) {
    if (publicOrigin != null) {
      return publicOrigin;
    }
    if (host == null || host.isBlank()) {
      return null;
    }
    return normalizeOrigin(scheme + "://" + host.strip());
  }

  /** Whether browsers reach the site over https, so its cookies must be {@code Secure}. */
  public boolean secure(String scheme) {
    return publicOrigin != null ? publicOrigin.startsWith("https://") : "https".equals(scheme);
  }

  /**
   * Whether a browser's {@code Origin} names this site, as reached with this scheme and Host. With
   * neither setting, an https page of this very host counts too even though the request came as
   * plain HTTP: that is a TLS proxy the app was not told about (the nginx set-up before these
   * settings), and nobody else can serve https pages for this host. An http page where https is
   * known (a public origin, or a trusted proxy's word) does not count: it could be forged in transit.
   */
  public boolean sameOrigin(String originHeader, String scheme, String host) {
    if (sameOrigin(originHeader, origin(scheme, host))) {
      return true;
    }
    return publicOrigin == null && "http".equals(scheme) && sameOrigin(originHeader, origin("https", host));
  }

  /** Whether an {@code Origin} header names {@code siteOrigin} ({@code null} and absent do not). */
  public static boolean sameOrigin(String originHeader, String siteOrigin) {
    if (originHeader == null || siteOrigin == null || originHeader.isBlank()) {
      return false;
    }
    return normalizeOrigin(originHeader).equals(siteOrigin);
  }
}
