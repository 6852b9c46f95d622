package io.shotstash.http;

import io.shotstash.bus.ApiError;
import io.shotstash.bus.QueryNumbers;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Query-string rules shared by list routes: only known keys, page and perPage bounds, sort keys. */
public record Paging(int page, int perPage) {
  public static final int DEFAULT_PER_PAGE = 50;
  public static final int MAX_PER_PAGE = 200;

  /** Refuses unknown query keys (422) and reads page/perPage. */
  public static Paging read(RoutingContext ctx, Set<String> allowedKeys) {
    Map<String, String> problems = new LinkedHashMap<>();
    for (String name : ctx.queryParams().names()) {
      if (!allowedKeys.contains(name) && !"page".equals(name) && !"perPage".equals(name)) {
        problems.put(name, "is not a known parameter");
      }
    }
    int page = QueryNumbers.read(ctx.queryParams().get("page"), "page", 1, 1, Integer.MAX_VALUE, problems);
    int perPage =
        QueryNumbers.read(ctx.queryParams().get("perPage"), "perPage", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE, problems);
    if (!problems.isEmpty()) {
      throw ApiError.validation(problems).toException();
    }
    return new Paging(page, perPage);
  }

  public <T> List<T> slice(List<T> all) {
    int from = (int) Math.min((long) (page - 1) * perPage, all.size());
    return all.subList(from, Math.min(from + perPage, all.size()));
  }
}
