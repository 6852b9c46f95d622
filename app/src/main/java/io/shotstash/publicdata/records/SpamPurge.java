package io.shotstash.publicdata.records;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.List;

/** {@code spam-purges/<id>.toml}: the public record a spam purge leaves behind. */
public record SpamPurge(
    String id,
    String personId,
    String slug,
    String fullName,
    Long githubUserId,
    String githubLogin,
    String by,
    String grantId,
    String reason,
    List<String> flags,
    List<Evidence> evidence,
    String beforeCommit,
    Instant purgedAt,
    boolean blocksSignIn,
    Instant unblockedAt,
    String unblockedBySlug) {

  public SpamPurge {
    flags = flags == null ? List.of() : List.copyOf(flags);
    evidence = evidence == null ? List.of() : List.copyOf(evidence);
  }

  /** One cited record: what it is, how it is identified, and its data-repository path. */
  public record Evidence(String record, String project, Integer number, String slug, String roleId, String field,
      String path) {}

  @JsonIgnore
  public boolean blockInForce() {
    return blocksSignIn && unblockedAt == null;
  }
}
