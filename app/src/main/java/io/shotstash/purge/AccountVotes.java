package io.shotstash.purge;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The votes on one person's account, read by the rule "Votes belong to one account": a vote
 * dated before the person's createdAt, or at or before the newest spam-purges record for the slug
 * whose personId is another person's, was cast on an earlier account under the slug and is ignored
 * by every rule (it is listed apart as an earlier vote). Pure.
 */
public record AccountVotes(
    Person person,
    List<PersonEvaluation> counting,
    List<PersonEvaluation> earlier,
    List<SpamPurge> purgesOfSlug) {

  /** The scheduled purge takes a member three days after the newest deciding vote. */
  public static final Duration PURGE_DELAY = Duration.ofDays(3);
  /** Newest first, then by evaluator for a stable order. */
  static final Comparator<PersonEvaluation> NEWEST_FIRST = Comparator
      .comparing(PersonEvaluation::evaluatedAt, Comparator.nullsLast(Comparator.reverseOrder()))
      .thenComparing(PersonEvaluation::evaluator);

  public AccountVotes {
    counting = List.copyOf(counting);
    earlier = List.copyOf(earlier);
    purgesOfSlug = List.copyOf(purgesOfSlug);
  }

  public static AccountVotes of(PublicState state, Person person) {
    String slug = person.slug().toLowerCase(Locale.ROOT);
    List<SpamPurge> purges = new ArrayList<>(state.find(Sheet.SPAM_PURGES, "slug", slug, SpamPurge.class));
    purges.sort(Comparator.comparing(SpamPurge::purgedAt, Comparator.nullsFirst(Comparator.naturalOrder())).reversed());
    Instant endedEarlierAccount = purges.stream()
        .filter(p -> !person.id().equals(p.personId()) && p.purgedAt() != null)
        .map(SpamPurge::purgedAt).findFirst().orElse(null);
    List<PersonEvaluation> counting = new ArrayList<>();
    List<PersonEvaluation> earlier = new ArrayList<>();
    for (PersonEvaluation e : state.find(Sheet.PERSON_EVALUATIONS, "personSlug", slug, PersonEvaluation.class)) {
      boolean beforeAccount =
          e.evaluatedAt() == null || person.createdAt() != null && e.evaluatedAt().isBefore(person.createdAt());
      boolean beforePurge =
          !beforeAccount && endedEarlierAccount != null && !e.evaluatedAt().isAfter(endedEarlierAccount);
      (beforeAccount || beforePurge ? earlier : counting).add(e);
    }
    counting.sort(NEWEST_FIRST);
    earlier.sort(NEWEST_FIRST);
    return new AccountVotes(person, counting, earlier, purges);
  }

  public List<PersonEvaluation> humanVotes() {
    return counting.stream().filter(PersonEvaluation::isHuman).toList();
  }

  public List<PersonEvaluation> agentVotes() {
    return counting.stream().filter(PersonEvaluation::isAgent).toList();
  }

  public boolean humanHasVoted() {
    return !humanVotes().isEmpty();
  }

  /** The newest human vote on this account; never an agent's. */
  public Optional<PersonEvaluation> latestVote() {
    return humanVotes().stream().findFirst();
  }

  /** The newest agent vote, when no human has voted on this account. */
  public Optional<PersonEvaluation> stagedVote() {
    return humanHasVoted() ? Optional.empty() : agentVotes().stream().findFirst();
  }

  /** The newest counting vote of any kind (the reversal rule reads it). */
  public Optional<PersonEvaluation> latestAnyVote() {
    return counting.stream().findFirst();
  }

  /** This voter's vote on this account. */
  public Optional<PersonEvaluation> voteBy(String evaluator) {
    return counting.stream().filter(e -> e.evaluator().equals(evaluator)).findFirst();
  }

  /**
   * The deciding votes: the human votes; when there are none, the votes of agents that still hold
   * an active grant.
   */
  public List<PersonEvaluation> decidingVotes(Set<String> agentsWithActiveGrant) {
    List<PersonEvaluation> humans = humanVotes();
    if (!humans.isEmpty()) {
      return humans;
    }
    return agentVotes().stream().filter(e -> agentsWithActiveGrant.contains(e.voterSlug())).toList();
  }

  /**
   * When the scheduled purge takes the member: three days after the newest deciding vote, when
   * every deciding vote is spam and the member is still deactivated and not staff; else null.
   */
  public Instant purgeAfter(Set<String> agentsWithActiveGrant) {
    List<PersonEvaluation> deciding = decidingVotes(agentsWithActiveGrant);
    if (deciding.isEmpty() || !person.isDeactivated() || person.level().atLeast(AccountLevel.STAFF)) {
      return null;
    }
    if (deciding.stream().anyMatch(e -> !"spam".equals(e.verdict()))) {
      return null;
    }
    return deciding.get(0).evaluatedAt().plus(PURGE_DELAY);
  }

  /** Whether any spam-purges record names this slug (the row signal slug-purged-before). */
  public boolean slugPurgedBefore() {
    return purgesOfSlug.stream().anyMatch(p -> !person.id().equals(p.personId()));
  }
}
