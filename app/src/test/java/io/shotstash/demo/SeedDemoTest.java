package io.shotstash.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.app.Startup;
import io.shotstash.auth.Actor;
import io.shotstash.config.Config;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateLoader;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.StateSnapshot;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.DataRepository;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** seed-demo fills an empty instance: one commit of public records, private rows beside them, once. */
class SeedDemoTest {
  @TempDir
  Path dataDir;

  @Test
  void fillsAnEmptyInstanceOnceWithMembersSomeOfThemSpamLike() throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      Config config = Config.load(Map.of("DATABASE_URL", db.databaseUrl(), "SHOTSTASH_DATA_DIR", dataDir.toString()));
      ByteArrayOutputStream console = new ByteArrayOutputStream();
      new SeedDemo(config, new PrintStream(console, true, StandardCharsets.UTF_8)).seed(300, 7);
      String printed = console.toString(StandardCharsets.UTF_8);
      assertThat(printed).contains("Seeded 300 members").contains("demo-admin");

      try (DataRepository repo = DataRepository.openOrInit(config.dataRepo(), config.dataBranch(), Sheet.templates(),
          new Attribution("codeforphilly.org").ident(Actor.SYSTEM, Instant.now()))) {
        PublicState state = new PublicStateLoader(repo, new TomlCodec()).loadHead();
        assertThat(state.size(Sheet.PEOPLE)).isEqualTo(301); // 300 members and demo-admin
        assertThat(state.setupDone()).isTrue();
        assertThat(state.all(Sheet.PROJECTS, Project.class)).isNotEmpty();
        assertThat(state.size(Sheet.PROJECT_MEMBERSHIPS)).isGreaterThan(state.size(Sheet.PROJECTS));
        long spamLike = state.all(Sheet.PEOPLE, Person.class).stream()
            .filter(p -> p.bio() != null && (p.bio().contains("http") || p.bio().contains("www."))).count();
        assertThat(spamLike).isPositive();
        // the state snapshot of what it committed, for the first start to read
        assertThat(new StateSnapshot().holds(Startup.snapshotFile(config), state.commit())).isTrue();
        assertThat(new StateSnapshot().load(Startup.snapshotFile(config)).state().records()).isEqualTo(state.records());
      }
      try (Connection c = io.shotstash.db.Database.connect(db.url());
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT (SELECT count(*) FROM private_profiles), (SELECT count(*) FROM sessions), "
                  + "(SELECT count(*) FROM private_profiles WHERE email LIKE '%mailinator.com' OR email LIKE '%10minutemail.com' "
                  + "OR email LIKE '%guerrillamail.com')")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(301);
        assertThat(rs.getLong(2)).isPositive();
        assertThat(rs.getLong(3)).isPositive();
      }
      // a second seed refuses: the instance has members now
      assertThatThrownBy(() -> new SeedDemo(config, new PrintStream(new ByteArrayOutputStream(), true,
          StandardCharsets.UTF_8)).seed(10, 1)).hasMessageContaining("has members");
    }
  }
}
