package io.shotstash.http;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The community over REST (docs/community-api.md): people ({@link MemberRoutes}), projects and what
 * is posted on them ({@link ProjectRoutes}), tags and blog posts ({@link TagAndBlogRoutes}), mounted
 * in this order.
 */
final class CommunityRoutes {
  private final CommunityRequests requests;

  CommunityRoutes(HttpServices services) {
    this.requests = new CommunityRequests(services);
  }

  void mount(Router router, BodyHandler json) {
    new MemberRoutes(requests).mount(router, json);
    new ProjectRoutes(requests).mount(router, json);
    new TagAndBlogRoutes(requests).mount(router, json);
  }
}
