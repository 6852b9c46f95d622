package io.shotstash;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Repo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Docker files, read as text: this machine has no Docker engine, so nothing here builds or runs
 * an image. It holds the rules a user relies on (issue 16): a dependency layer before the sources,
 * no root at run time, required secrets that stop {@code docker compose} at once, an
 * {@code .env.example} listing every variable, and a build context without output, history or data.
 */
class DockerFilesTest {
  private static final Path ROOT = Repo.root();
  /** What compose must refuse to run without: a restart loop is no way to say a secret is missing. */
  private static final Set<String> REQUIRED = Set.of("POSTGRES_PASSWORD", "WORKER_BOOTSTRAP_TOKEN");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?+])?([^}]*)}");

  private static String read(String file) throws IOException {
    return Files.readString(ROOT.resolve(file), StandardCharsets.UTF_8);
  }

  /** The Dockerfile's instructions per stage (stage name, or "#n" when unnamed), comments and continuations joined. */
  private static Map<String, List<String>> stages() throws IOException {
    Map<String, List<String>> stages = new LinkedHashMap<>();
    List<String> current = null;
    String joined = read("Dockerfile").replaceAll("\\\\\\n\\s*", " ");
    for (String line : joined.split("\n")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      if (l.toUpperCase().startsWith("FROM ")) {
        Matcher m = Pattern.compile("(?i)\\s+AS\\s+(\\S+)$").matcher(l);
        current = new ArrayList<>();
        stages.put(m.find() ? m.group(1) : "#" + stages.size(), current);
      }
      current.add(l);
    }
    return stages;
  }

  private static String keyword(String instruction) {
    return instruction.split("\\s+", 2)[0].toUpperCase();
  }

  @Test
  void everyStageThatRunsTheJarEndsAsANonRootUser() throws IOException {
    Map<String, List<String>> stages = stages();
    List<String> runtime = stages.entrySet().stream()
        .filter(e -> e.getValue().stream().anyMatch(i -> keyword(i).equals("ENTRYPOINT"))).map(Map.Entry::getKey)
        .toList();
    assertThat(runtime).as("the app stage and the worker stage").hasSize(2).contains("worker");
    for (String stage : runtime) {
      List<String> users = stages.get(stage).stream().filter(i -> keyword(i).equals("USER")).toList();
      assertThat(users).as("stage %s sets USER", stage).isNotEmpty();
      String user = users.get(users.size() - 1).split("\\s+")[1].split(":")[0];
      assertThat(user).as("stage %s runs as", stage).isNotIn("root", "0");
      List<String> after = stages.get(stage).subList(stages.get(stage).indexOf(users.get(users.size() - 1)),
          stages.get(stage).size());
      assertThat(after).as("stage %s: USER comes before the entry point", stage)
          .anyMatch(i -> keyword(i).equals("ENTRYPOINT"));
      if (user.matches("\\d+")) { // a numeric user must exist in the image, or Java has no home and no name
        assertThat(stages.get(stage)).as("stage %s creates uid %s", stage, user)
            .anyMatch(i -> keyword(i).equals("RUN") && i.contains("useradd") && i.contains("--uid " + user));
      }
    }
  }

  @Test
  void theDataVolumeBelongsToTheAppsUser() throws IOException {
    List<String> app = new ArrayList<>(stages().values()).get(stages().size() - 1);
    int volume = indexOf(app, "VOLUME");
    int chown = -1;
    for (int i = 0; i < app.size(); i++) {
      if (keyword(app.get(i)).equals("RUN") && app.get(i).contains("chown") && app.get(i).contains("/data")) {
        chown = i;
      }
    }
    assertThat(chown).as("/data is chowned to the user (a new named volume copies that owner)").isBetween(0, volume);
  }

  @Test
  void mavenDependenciesAreALayerOfTheirOwnBeforeTheSources() throws IOException {
    List<String> build = stages().get("build");
    int pom = indexOfMatching(build, "COPY\\s+pom\\.xml\\s.*");
    int offline = indexOfMatching(build, "RUN\\s+mvn\\s.*dependency:go-offline.*");
    int sources = indexOfMatching(build, "COPY\\s+(\\S+/)?src\\s.*");
    // the last package: the dependency layer packages the empty modules too (so go-offline finds them)
    int packaged = lastIndexOfMatching(build, "RUN\\s+mvn\\s.*package.*");
    assertThat(pom).as("COPY pom.xml").isNotNegative();
    assertThat(offline).as("dependency:go-offline after the pom").isGreaterThan(pom);
    assertThat(sources).as("the sources after the dependencies").isGreaterThan(offline);
    assertThat(packaged).as("the package after the sources").isGreaterThan(sources);
    for (int i = 0; i < offline; i++) {
      assertThat(build.get(i)).as("nothing but the poms (the parent's and each module's) before the dependency layer")
          .doesNotMatch("(?i)COPY\\s+(?!(\\S+/)?pom\\.xml\\s).*");
    }
  }

  @Test
  void everyVariableComposeUsesIsInEnvExampleWithAComment() throws IOException {
    Set<String> used = new LinkedHashSet<>();
    Matcher m = VARIABLE.matcher(read("docker-compose.yml"));
    while (m.find()) {
      used.add(m.group(1));
    }
    assertThat(used).contains("POSTGRES_PASSWORD", "WORKER_BOOTSTRAP_TOKEN", "SHOTSTASH_SETUP_TOKEN");
    List<String> example = read(".env.example").lines().toList();
    for (String name : used) {
      int line = -1;
      for (int i = 0; i < example.size(); i++) {
        if (example.get(i).startsWith(name + "=")) {
          line = i;
        }
      }
      assertThat(line).as(".env.example lists %s as NAME=value", name).isPositive();
      assertThat(example.get(line - 1)).as("%s has a comment right above it", name).startsWith("#");
    }
  }

  @Test
  void requiredSecretsStopComposeAtOnceAndAreEmptyInTheExample() throws IOException {
    Matcher m = VARIABLE.matcher(read("docker-compose.yml"));
    Set<String> seen = new LinkedHashSet<>();
    while (m.find()) {
      if (REQUIRED.contains(m.group(1))) {
        seen.add(m.group(1));
        assertThat(m.group(2)).as("%s uses ${%s:?message}", m.group(), m.group(1)).isEqualTo(":?");
        assertThat(m.group(3)).as("%s says what to do", m.group()).contains(".env");
      }
    }
    assertThat(seen).isEqualTo(REQUIRED);
    for (String name : REQUIRED) {
      assertThat(read(".env.example").lines()).as("no working secret ships in the example")
          .contains(name + "=");
    }
    // and no hard-coded database password any more
    assertThat(read("docker-compose.yml")).doesNotContain("shotstash:shotstash@").doesNotContain(
        "POSTGRES_PASSWORD: shotstash");
  }

  @Test
  void theAppServiceDoesNotRestartInALoop() throws IOException {
    String compose = read("docker-compose.yml");
    String app = compose.substring(compose.indexOf("\n  app:"), compose.indexOf("\n  worker:"));
    // a refused start (bad settings, a database and a repository of two instances) should stay down
    // with its one message in the log, not repeat it forever
    assertThat(app).doesNotContain("restart:");
  }

  @Test
  void theBuildContextLeavesOutOutputHistoryDataAndSecrets() throws IOException {
    List<String> ignored = read(".dockerignore").lines().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    assertThat(ignored).anyMatch(l -> l.equals("target") || l.equals("target/"))
        .anyMatch(l -> l.equals(".git") || l.equals(".git/"))
        .anyMatch(l -> l.equals("data") || l.equals("data/"))
        .contains(".env");
    // what the build stage copies must not be ignored
    for (String copied : List.of("pom.xml", "conf", "app", "worker-verticle", "bench")) {
      assertThat(ignored).as("%s is sent to the build", copied).doesNotContain(copied, copied + "/");
    }
    assertThat(read(".gitignore").lines()).as(".env holds secrets: never committed").contains(".env");
  }

  private static int indexOf(List<String> instructions, String keyword) {
    for (int i = 0; i < instructions.size(); i++) {
      if (keyword(instructions.get(i)).equals(keyword)) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndexOfMatching(List<String> instructions, String regex) {
    for (int i = instructions.size() - 1; i >= 0; i--) {
      if (instructions.get(i).matches("(?i)" + regex)) {
        return i;
      }
    }
    return -1;
  }

  private static int indexOfMatching(List<String> instructions, String regex) {
    for (int i = 0; i < instructions.size(); i++) {
      if (instructions.get(i).matches("(?i)" + regex)) {
        return i;
      }
    }
    return -1;
  }
}
