package io.shotstash.moderation;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.purge.AccountVotes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * The people the roster searches, prepared once per version of the {@code people} sheet: agent
 * accounts left out, in the default order (newest sign-up first), with three search columns: the
 * lower-cased slug, full name and bio of each person; the email from the private profile; and the
 * email's domain. Each column is one string, the people's values in order separated by NUL, so a
 * {@code q} filter is a few {@code indexOf} runs over contiguous memory rather than a walk over
 * 32,000 objects, and the default order needs no sort.
 *
 * <p>A vote that changes no person record (any legit vote, a vote on someone already hidden) keeps
 * the index; one that hides a member makes the next request build it again. Pure.
 */
public final class RosterIndex {
  /** createdAt newest first (no date last), then slug: the roster's default order, {@code -createdAt}. */
  static final Comparator<Person> NEWEST_FIRST = Comparator.comparing(Person::createdAt,
      Comparator.nullsFirst(Comparator.<Instant>naturalOrder())).reversed().thenComparing(Person::slug);

  private static final char END = '\0';

  private final Object version;
  private final List<Person> newestFirst;
  /** slug, full name and bio, lower-cased, joined by line breaks. */
  private final Column text;
  private final Column email;
  /** {@code split_part(email, '@', 2)}: what an agent's {@code q} searches instead of the email. */
  private final Column domain;

  private RosterIndex(Object version, List<Person> newestFirst, Column text, Column email, Column domain) {
    this.version = version;
    this.newestFirst = newestFirst;
    this.text = text;
    this.email = email;
    this.domain = domain;
  }

  /** {@code emails}: person id → email, from the private profiles (people without one are absent). */
  public static RosterIndex of(PublicState state, Map<UUID, String> emails) {
    List<Person> people = new ArrayList<>(state.all(Sheet.PEOPLE, Person.class));
    people.removeIf(Person::isAgentAccount);
    people.sort(NEWEST_FIRST);
    Function<Person, String> emailOf = p -> {
      UUID id = uuid(p.id());
      return id == null ? null : emails.get(id);
    };
    return new RosterIndex(state.version(Sheet.PEOPLE), List.copyOf(people),
        Column.of(people, p -> (p.slug() + "\n" + p.fullName() + "\n" + (p.bio() == null ? "" : p.bio()))
            .toLowerCase(Locale.ROOT)),
        Column.of(people, emailOf),
        Column.of(people, p -> {
          String e = emailOf.apply(p);
          return e == null ? null : domain(e);
        }));
  }

  /** Whether this index still describes {@code state}'s people. */
  public boolean isFor(PublicState state) {
    return state.version(Sheet.PEOPLE) == version;
  }

  /**
   * The people the query keeps, in its order: {@code q} matches slug, name and bio (case-insensitive)
   * or, as its lower-cased substring, the email (staff) or only the email's domain ({@code agent});
   * then origin, the joined bounds, includeDeactivated and the vote filter ({@code state} answers the
   * votes). {@code logins} (person id → last sign-in) is needed only to sort by lastLoginAt.
   */
  public List<Person> matching(PublicState state, RosterQuery q, boolean agent, Map<String, Instant> logins) {
    BitSet candidates = new BitSet(newestFirst.size());
    if (q.q() == null) {
      candidates.set(0, newestFirst.size());
    } else {
      String needle = q.q().toLowerCase(Locale.ROOT);
      if (needle.indexOf(END) >= 0 || needle.indexOf('\n') >= 0) {
        // could match across two values or two fields: person by person, field by field
        for (int i = 0; i < newestFirst.size(); i++) {
          if (fieldMatches(newestFirst.get(i), needle) || (agent ? domain : email).value(i).contains(needle)) {
            candidates.set(i);
          }
        }
      } else {
        text.mark(needle, candidates);
        (agent ? domain : email).mark(needle, candidates);
      }
    }
    List<Person> out = new ArrayList<>();
    for (int i = candidates.nextSetBit(0); i >= 0; i = candidates.nextSetBit(i + 1)) {
      Person p = newestFirst.get(i);
      if (!q.includeDeactivated() && p.isDeactivated()) {
        continue;
      }
      if (q.origin() != null && q.origin().equals("imported") != (p.legacyId() != null)) {
        continue;
      }
      if (q.joinedAfter() != null && (p.createdAt() == null || p.createdAt().isBefore(q.joinedAfter()))) {
        continue;
      }
      if (q.joinedBefore() != null && (p.createdAt() == null || p.createdAt().isAfter(q.joinedBefore()))) {
        continue;
      }
      if (q.vote() != null && !voteMatches(state, p, q.vote())) {
        continue;
      }
      out.add(p);
    }
    if (!("createdAt".equals(q.sort()) && q.descending())) {
      out.sort(order(q, logins));
    }
    return out;
  }

  /**
   * One value per person, in index order, in one string: value i runs from {@code starts[i]} to
   * {@code starts[i + 1] - 1}, where a NUL ends it. A missing value is empty.
   */
  private record Column(String all, int[] starts) {
    static Column of(List<Person> people, Function<Person, String> value) {
      StringBuilder all = new StringBuilder();
      int[] starts = new int[people.size() + 1];
      for (int i = 0; i < people.size(); i++) {
        starts[i] = all.length();
        String v = value.apply(people.get(i));
        all.append(v == null ? "" : v.replace(END, ' ')).append(END);
      }
      starts[people.size()] = all.length();
      return new Column(all.toString(), starts);
    }

    String value(int i) {
      return all.substring(starts[i], starts[i + 1] - 1);
    }

    /** Sets the bit of every person whose value contains {@code needle} (which holds no NUL). */
    void mark(String needle, BitSet out) {
      int from = 0;
      while ((from = all.indexOf(needle, from)) >= 0) {
        int at = Arrays.binarySearch(starts, from);
        int person = at >= 0 ? at : -at - 2; // the value the match starts in
        out.set(person);
        from = starts[person + 1]; // on to the next person's value
      }
    }
  }

  private static boolean voteMatches(PublicState state, Person p, String vote) {
    AccountVotes votes = AccountVotes.of(state, p);
    return switch (vote) {
      case "none" -> !votes.humanHasVoted();
      case "staged" -> !votes.humanHasVoted() && !votes.agentVotes().isEmpty();
      default -> votes.latestVote().map(e -> vote.equals(e.verdict())).orElse(false);
    };
  }

  /** The query's order; ties go by slug. */
  static Comparator<Person> order(RosterQuery q, Map<String, Instant> logins) {
    Comparator<Person> c = switch (q.sort()) {
      case "fullName" -> Comparator.comparing(p -> p.fullName().toLowerCase(Locale.ROOT));
      case "lastLoginAt" ->
        Comparator.comparing(p -> logins.get(p.id()), Comparator.nullsFirst(Comparator.naturalOrder()));
      default -> Comparator.comparing(Person::createdAt, Comparator.nullsFirst(Comparator.naturalOrder()));
    };
    return (q.descending() ? c.reversed() : c).thenComparing(Person::slug);
  }

  /** {@code split_part(email, '@', 2)}: between the first {@code @} and the next one. */
  static String domain(String email) {
    int at = email.indexOf('@');
    if (at < 0) {
      return "";
    }
    int next = email.indexOf('@', at + 1);
    return email.substring(at + 1, next < 0 ? email.length() : next);
  }

  /** A person id as the UUID private rows use, or null when it is not one. */
  static UUID uuid(String id) {
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException | NullPointerException e) {
      return null; // no private profile can name it
    }
  }

  private static boolean fieldMatches(Person p, String needle) {
    return p.slug().toLowerCase(Locale.ROOT).contains(needle) || p.fullName().toLowerCase(Locale.ROOT).contains(needle)
        || (p.bio() != null && p.bio().toLowerCase(Locale.ROOT).contains(needle));
  }
}
