package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.people.PrivateSql;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * POST /api/admin/private-data/purge-orphans: the private rows of every person id that has no
 * people record. It runs in the git writer (the write lock), so a member mid-sign-up (private
 * rows written, public record not yet) is never counted. Counts only, never names or ids.
 */
public final class PrivateDataWrites {
  public static final String PURGE_ORPHANS = "private-data.purge-orphans";

  private PrivateDataWrites() {}

  public static List<WriteHandler> handlers() {
    return List.of(WriteHandler.of(PURGE_ORPHANS, PrivateDataWrites::purgeOrphans));
  }

  static Future<WritePlan> purgeOrphans(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    if (!(cmd.actor() instanceof Actor.Member m) || state.personById(m.personId())
        .filter(p -> !p.isDeactivated() && p.level() == AccountLevel.ADMINISTRATOR).isEmpty()) {
      return ModerationWrites.refuse(ApiError.notFound());
    }
    boolean apply = cmd.params().getBoolean("apply", false);
    return ctx.tx().query(PrivateSql.PRIVATE_PERSON_IDS).execute().compose(rows -> {
      Set<UUID> orphans = new HashSet<>();
      for (Row r : rows) {
        UUID id = r.getUUID(0);
        if (state.findKeys(Sheet.PEOPLE, "id", id.toString()).isEmpty()) {
          orphans.add(id);
        }
      }
      UUID[] ids = orphans.toArray(UUID[]::new);
      List<String> statements = apply
          ? List.of(PrivateSql.DELETE_ORPHAN_PROFILES, PrivateSql.DELETE_ORPHAN_PASSWORDS,
              PrivateSql.DELETE_ORPHAN_SESSIONS)
          : List.of(PrivateSql.COUNT_ORPHAN_PROFILES, PrivateSql.COUNT_ORPHAN_PASSWORDS,
              PrivateSql.COUNT_ORPHAN_SESSIONS);
      List<Future<Integer>> counts = new ArrayList<>();
      for (String sql : statements) {
        counts
            .add(ctx.tx().preparedQuery(sql).execute(Tuple.of((Object) ids)).map(r -> apply ? r.rowCount() : r.size()));
      }
      return Future.all(counts).map(all -> {
        JsonObject result = new JsonObject().put("applied", apply).put("orphanPeople", orphans.size())
            .put("profiles", all.<Integer>resultAt(0)).put("legacyPasswords", all.<Integer>resultAt(1))
            .put("claimRequests", 0).put("sessions", all.<Integer>resultAt(2));
        return WritePlan.noChange(s -> result);
      });
    });
  }
}
