package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The staff screens, served by the app itself from {@code webroot/} in the jar (plain HTML whose
 * shared head and staff header are filled in as the pages are read, one CSS file and JavaScript
 * modules; no build step):
 * <ul>
 *   <li>{@code GET /}: the start page ({@link HomePage}): how to finish setup, a way to sign in, or the
 *       screens the signed-in person can use;</li>
 *   <li>{@code GET /login}: the sign-in page (password and GitHub), for everyone;</li>
 *   <li>{@code GET /admin/members}: the members desk, for signed-in staff and administrators only;
 *       everyone else gets the site's 404 page, so the page tells nobody else that it exists;</li>
 *   <li>{@code GET /admin/jobs}: the jobs view, for any signed-in person (what they may do there is
 *       decided by the APIs it calls); an anonymous caller is sent to {@code /login?return=/admin/jobs};</li>
 *   <li>{@code GET /assets/<version>/...}: the CSS, scripts and icon. The version is a hash of their
 *       bytes, so they are cached for a year and a new build changes every URL;</li>
 *   <li>the site's 404 page (status 404) for any other path that is neither API nor media.</li>
 * </ul>
 * Every page carries a Content-Security-Policy that allows only this site's own scripts and styles
 * (no inline code), and the GraphQL WebSocket for live job updates. The pages read and change data
 * only through the JSON and GraphQL APIs, as the signed-in browser.
 */
final class PagesRoutes {
  /** The policy of every HTML page: nothing inline, nothing from elsewhere, no framing. */
  static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
      + "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  /** Assets under {@code webroot/}, served at {@code /assets/<version>/<path>}. */
  static final List<String> ASSETS = List.of("css/site.css", "img/icon.svg", "js/api.js", "js/ui.js",
      "js/graphql-ws.js", "js/login.js", "js/members.js", "js/members-keyboard.js", "js/purge-log.js", "js/jobs.js",
      "js/jobs-common.js", "js/jobs-files.js", "js/jobs-dashboard.js", "js/jobs-table.js", "js/jobs-workers.js",
      "js/charts.js", "js/members-bulk.js", "js/members-cards.js", "js/members-parts.js", "js/members-table.js",
      "js/members-tabs.js", "js/members-url.js", "js/jobs-upload.js", "js/jobs-folders.js",
      // tus-js-client 4.3.1 from npm (dist/tus.min.js as published), served with its licence
      "vendor/tus.min.js", "vendor/tus-js-client-LICENSE.txt");
  static final String JOBS_PATH = "/admin/jobs";
  private static final String ASSET_PREFIX = "/assets/";
  private static final String IMMUTABLE = "public, max-age=31536000, immutable";

  private final HttpServices services;
  private final Callers callers;
  private final HomePage home;
  private final byte[] login;
  private final byte[] members;
  private final byte[] jobs;
  private final byte[] notFound;

  PagesRoutes(HttpServices services, Callers callers) {
    this.services = services;
    this.callers = callers;
    Site site = Site.INSTANCE;
    boolean github = services.config().github().signInEnabled();
    this.home = new HomePage(new String(site.page("index.html", github), StandardCharsets.UTF_8));
    this.login = site.page("login.html", github);
    this.members = site.page("admin/members.html", github);
    this.jobs = site.page("admin/jobs.html", github);
    this.notFound = site.page("404.html", github);
  }

  void mount(Router router) {
    router.get("/").handler(callers::resolve).handler(this::home);
    router.get("/login").handler(ctx -> page(ctx, 200, login));
    router.get("/admin/members").handler(callers::resolve).handler(this::members);
    router.get(JOBS_PATH).handler(callers::resolve).handler(this::jobs);
    router.get(ASSET_PREFIX + "*").handler(this::asset);
    // whatever no route took: the API's envelope under /api and /media, the site's 404 page elsewhere
    router.errorHandler(404, this::notFound);
  }

  private void home(RoutingContext ctx) {
    ctx.request().resume();
    if (!services.publicState().current().setupDone()) {
      // a first visit before setup is not an error: say how to finish it
      String origin = callers.siteOrigin(ctx); // null only for a request without a Host header
      page(ctx, 200, home.setup(origin != null ? origin : "http://localhost:" + services.config().httpPort(),
          services.config().setupToken() != null));
    } else if (Callers.actor(ctx) instanceof Actor.Member m) {
      page(ctx, 200, home.member(m.fullName(), m.slug(), m.level()));
    } else {
      page(ctx, 200, home.anonymous());
    }
  }

  private void members(RoutingContext ctx) {
    ctx.request().resume();
    if (Callers.actor(ctx) instanceof Actor.Member m && m.atLeast(AccountLevel.STAFF)) {
      page(ctx, 200, members);
    } else {
      page(ctx, 404, notFound);
    }
  }

  private void jobs(RoutingContext ctx) {
    ctx.request().resume();
    if (Callers.actor(ctx) instanceof Actor.Member) {
      page(ctx, 200, jobs);
    } else {
      ctx.response().setStatusCode(302).putHeader("Location", "/login?return=" + JOBS_PATH)
          .putHeader("Cache-Control", "no-store").end();
    }
  }

  private void asset(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    String rest = path.startsWith(ASSET_PREFIX) ? path.substring(ASSET_PREFIX.length()) : "";
    int slash = rest.indexOf('/');
    Site.Asset asset = slash <= 0 ? null : Site.INSTANCE.assets.get(rest.substring(slash + 1));
    if (asset == null) {
      page(ctx, 404, notFound);
      return;
    }
    // an old page (another node mid-deploy) may ask for another version: answer, but do not pin it
    boolean current = Site.INSTANCE.version.equals(rest.substring(0, slash));
    ctx.response().putHeader("Content-Type", asset.contentType())
        .putHeader("Cache-Control", current ? IMMUTABLE : "no-cache")
        .end(Buffer.buffer(asset.bytes()));
  }

  private void notFound(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    if (path.equals("/api") || path.startsWith("/api/") || path.startsWith("/media/")) {
      Envelope.error(ctx, ApiError.notFound());
    } else {
      page(ctx, 404, notFound);
    }
  }

  private static void page(RoutingContext ctx, int status, byte[] html) {
    HttpServerResponse res = ctx.response();
    if (res.ended()) {
      return;
    }
    res.setStatusCode(status)
        .putHeader("Content-Type", "text/html; charset=utf-8")
        .putHeader("Content-Security-Policy", CSP)
        .putHeader("Cache-Control", "no-store")
        .putHeader("X-Frame-Options", "DENY")
        .putHeader("Referrer-Policy", "same-origin")
        .end(Buffer.buffer(html));
  }

  /** The pages and assets, read from the jar once per process. */
  static final class Site {
    static final Site INSTANCE = new Site();

    record Asset(byte[] bytes, String contentType) {}

    final Map<String, Asset> assets = new LinkedHashMap<>();
    /** The first 16 hex digits of the SHA-256 over every asset's path and bytes. */
    final String version;

    private Site() {
      MessageDigest sha;
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
      for (String path : ASSETS) {
        byte[] bytes = read(path);
        assets.put(path, new Asset(bytes, contentType(path)));
        sha.update(path.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(bytes);
      }
      version = HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    }

    /**
     * A page with its placeholders filled: {@code {{head}}} (the head every page shares, {@code
     * head.html}), {@code {{staff-header}}} (the staff screens' header, {@code admin/header.html},
     * with the link to this page marked as the current one), {@code {{assets}}} and {@code {{github}}}.
     */
    byte[] page(String path, boolean github) {
      String link = "href=\"/" + path.substring(0, path.length() - ".html".length()) + "\"";
      String html = new String(read(path), StandardCharsets.UTF_8)
          .replace("{{head}}", new String(read("head.html"), StandardCharsets.UTF_8).stripTrailing())
          .replace("{{staff-header}}", new String(read("admin/header.html"), StandardCharsets.UTF_8).stripTrailing()
              .replace(link, link + " aria-current=\"page\""))
          .replace("{{assets}}", "/assets/" + version)
          .replace("{{github}}", Boolean.toString(github));
      return html.getBytes(StandardCharsets.UTF_8);
    }

    static String contentType(String path) {
      if (path.endsWith(".js")) {
        return "text/javascript; charset=utf-8";
      }
      if (path.endsWith(".css")) {
        return "text/css; charset=utf-8";
      }
      if (path.endsWith(".svg")) {
        return "image/svg+xml";
      }
      if (path.endsWith(".txt")) {
        return "text/plain; charset=utf-8";
      }
      throw new IllegalArgumentException("no content type for " + path);
    }

    private static byte[] read(String path) {
      try (InputStream in = PagesRoutes.class.getClassLoader().getResourceAsStream("webroot/" + path)) {
        if (in == null) {
          throw new IllegalStateException("webroot/" + path + " is missing from the jar");
        }
        return in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
