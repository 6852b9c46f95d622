package io.shotstash.http;

import io.shotstash.auth.Passwords;
import io.shotstash.people.AccountWrites;
import io.shotstash.people.PersonRules;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/**
 * A new account as a JSON body names it: the first administrator at setup ({@code POST /api/setup},
 * password required, no level) or one an administrator creates ({@code POST /api/people}, an
 * optional password and {@code accountLevel}, user by default).
 */
record NewAccount(String slug, String fullName, String email, String password, AccountLevel level) {

  /** The body's account, every problem in it one 422. */
  static NewAccount read(RoutingContext ctx, boolean setup) {
    JsonBody body = JsonBody.of(ctx, setup ? Set.of("slug", "fullName", "email", "password")
        : Set.of("slug", "fullName", "email", "password", "accountLevel"));
    String slug = body.string("slug");
    String fullName = body.string("fullName");
    String email = body.string("email");
    String password = body.string("password");
    String level = setup ? null : body.string("accountLevel");
    body.problems(PersonRules.newAccountProblems(slug, fullName, email, password, setup, level));
    body.validate();
    AccountLevel accountLevel = setup ? AccountLevel.ADMINISTRATOR
        : level == null ? AccountLevel.USER : AccountLevel.parse(level).orElseThrow();
    return new NewAccount(slug, fullName, email, password, accountLevel);
  }

  /** The write's params ({@link AccountWrites#newAccountParams}), the password hashed off the event loop. */
  Future<JsonObject> params(Vertx vertx) {
    Future<String> hash =
        password == null ? Future.succeededFuture(null) : vertx.executeBlocking(() -> Passwords.hash(password));
    return hash.map(h -> AccountWrites.newAccountParams(slug, fullName, email, h, level));
  }
}
