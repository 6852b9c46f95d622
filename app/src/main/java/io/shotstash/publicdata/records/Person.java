package io.shotstash.publicdata.records;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/** {@code people/<slug>.toml}: the public record of a member or an agent account. */
public record Person(
    String id,
    String legacyId,
    String slug,
    String fullName,
    String bio,
    String avatarKey,
    String accountLevel,
    Boolean agent,
    Long githubUserId,
    String githubLogin,
    Instant deletedAt,
    String deactivatedBy,
    Instant createdAt,
    Instant updatedAt) {

  @JsonIgnore
  public boolean isAgentAccount() {
    return Boolean.TRUE.equals(agent);
  }

  @JsonIgnore
  public boolean isDeactivated() {
    return deletedAt != null;
  }

  @JsonIgnore
  public AccountLevel level() {
    return AccountLevel.parse(accountLevel).orElse(AccountLevel.USER);
  }

  public Person withAccountLevel(String level, Instant now) {
    return new Person(id, legacyId, slug, fullName, bio, avatarKey, level, agent, githubUserId, githubLogin,
        deletedAt, deactivatedBy, createdAt, now);
  }
}
