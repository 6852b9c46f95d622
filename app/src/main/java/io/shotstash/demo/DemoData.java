package io.shotstash.demo;

import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * Realistic demo content, made deterministically from a seed: members (about one in twelve
 * spam-like — business names, links in bios, throwaway email domains, brand-new GitHub accounts
 * with no activity), projects, memberships, updates, buzz, help-wanted roles and interest, tags,
 * and the private facts moderation reads (email, GitHub facts, sessions). Pure: it only builds
 * records; {@link SeedDemo} writes them.
 */
public final class DemoData {
  private static final String[] FIRST = {"Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "Dennis", "Barbara",
      "Ken", "Frances", "Tim", "Radia", "Guido", "Hedy", "James", "Sophie", "Rosa", "Marcus", "Aisha", "Wei", "Priya",
      "Carlos", "Fatima", "Olu", "Noor", "Diego", "Yuki", "Lena", "Omar", "Zara", "Ivan", "Mei", "Jamal", "Ines"};
  private static final String[] LAST = {"Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Hamilton", "Ritchie",
      "Liskov", "Thompson", "Allen", "Berners-Lee", "Perlman", "van Rossum", "Lamarr", "Gosling", "Wilson", "Parks",
      "Garcia", "Khan", "Chen", "Patel", "Okafor", "Nguyen", "Silva", "Kim", "Schmidt", "Haddad", "Novak", "Rossi"};
  private static final String[] BUSINESS = {"Best Cheap Pills Online", "Crypto Profit Hub", "Top SEO Agency",
      "Luxury Replica Watches", "Quick Loans Today", "Casino Bonus Deals", "Essay Writing Pros", "Follower Booster"};
  private static final String[] SPAM_BIO = {"Buy now at https://cheap-pills.shop with free shipping!",
      "Visit www.crypto-profit.example for guaranteed returns", "Best SEO services [click here](https://seo.example)",
      "<a href=\"https://loans.example\">Fast loans</a> approved in minutes"};
  private static final String[] BIO = {"Civic technologist and map nerd.", "I build accessible web apps.",
      "Data scientist interested in transit.", "Designer who loves open data.", "Teacher learning to code.",
      "Volunteer organizer for hack nights.", "Backend developer, coffee drinker.", "Urban planner exploring GIS."};
  private static final String[] WORDS = {"Transit", "Bike", "Housing", "Budget", "School", "Voter", "Park", "Tree",
      "Water", "Library", "Open", "Civic", "Neighborhood", "Food", "Health", "Data", "Map", "Tracker", "Portal",
      "Guide"};
  private static final String[] DOMAINS = {"example.org", "mail.example.com", "fastmail.example", "proton.example"};
  private static final String[] THROWAWAY = {"mailinator.com", "10minutemail.com", "guerrillamail.com"};

  /** A member and the private facts that go with them. */
  public record Member(Person person, String email, String githubLogin, Instant githubCreatedAt, int publicRepos,
      int followers, int sessions, Instant lastSession, boolean spamLike) {}

  /** Everything a seed produces. */
  public record Content(List<Member> members, List<RecordChange> records) {}

  private final Random random;
  private final Instant now;

  public DemoData(long seed, Instant now) {
    this.random = new Random(seed);
    this.now = now.truncatedTo(ChronoUnit.MILLIS);
  }

  public Content build(int memberCount, Set<String> takenSlugs) {
    List<RecordChange> records = new ArrayList<>();
    List<Member> members = members(memberCount, takenSlugs);
    members.forEach(m -> records.add(RecordChange.put(Sheet.PEOPLE, m.person().slug(), m.person())));
    List<Member> real = members.stream().filter(m -> !m.spamLike()).toList();
    List<Tag> tags = tags(records);
    List<Project> projects = projects(Math.max(1, memberCount / 20), real, records);
    for (Project p : projects) {
      posts(p, real, records);
    }
    for (Member m : members) {
      if (random.nextInt(2) == 0 && !tags.isEmpty()) {
        Tag t = tags.get(random.nextInt(tags.size()));
        TagAssignment a = new TagAssignment(t.id(), "person", m.person().id());
        records.add(RecordChange.put(Sheet.TAG_ASSIGNMENTS, RecordKeys.tagAssignment(a), a));
      }
    }
    return new Content(members, dedupe(records));
  }

  private List<Member> members(int count, Set<String> taken) {
    Set<String> slugs = new HashSet<>(taken);
    List<Member> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      boolean spam = random.nextInt(12) == 0;
      String fullName = spam ? BUSINESS[random.nextInt(BUSINESS.length)]
          : FIRST[random.nextInt(FIRST.length)] + " " + LAST[random.nextInt(LAST.length)];
      String base = fullName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
      String slug = base;
      for (int n = 2; !slugs.add(slug); n++) {
        slug = base + "-" + n;
      }
      Instant created = spam ? now.minus(Duration.ofHours(1 + random.nextInt(24 * 20)))
          : now.minus(Duration.ofDays(random.nextInt(2000))).minus(Duration.ofMinutes(random.nextInt(1440)));
      String bio = spam ? SPAM_BIO[random.nextInt(SPAM_BIO.length)]
          : random.nextInt(4) == 0 ? null : BIO[random.nextInt(BIO.length)];
      String login = slug.replace("-", "") + (random.nextInt(3) == 0 ? random.nextInt(100) : "");
      long githubId = 1_000_000L + i;
      Person person = new Person(uuid(created).toString(), null, slug, fullName, bio, null, "user", null, githubId,
          login, null, null,
          created, created);
      String email = spam ? "promo" + random.nextInt(10_000) + "@" + THROWAWAY[random.nextInt(THROWAWAY.length)]
          : slug.replace("-", ".") + "@" + DOMAINS[random.nextInt(DOMAINS.length)];
      Instant githubCreated = spam ? created.minus(Duration.ofHours(random.nextInt(72)))
          : created.minus(Duration.ofDays(100 + random.nextInt(3000)));
      int repos = spam ? 0 : random.nextInt(60);
      int followers = spam ? 0 : random.nextInt(200);
      int sessions = spam ? random.nextInt(2) : random.nextInt(10) < 7 ? 1 + random.nextInt(5) : 0;
      Instant lastSession = created.plus(Duration.ofMinutes(5 + random.nextInt(60 * 24 * 30)));
      out.add(new Member(person, email, login, githubCreated, repos, followers, sessions,
          lastSession.isAfter(now) ? now : lastSession, spam));
    }
    return out;
  }

  private List<Tag> tags(List<RecordChange> records) {
    List<Tag> tags = new ArrayList<>();
    String[][] all = {{"topic", "transit"}, {"topic", "housing"}, {"topic", "education"}, {"topic", "environment"},
        {"tech", "java"}, {"tech", "python"}, {"tech", "javascript"}, {"tech", "postgresql"}, {"tech", "gis"},
        {"event", "hack-night"}, {"event", "civic-hacking-day"}};
    for (String[] t : all) {
      Tag tag = new Tag(uuid(now).toString(), t[0], t[1],
          Character.toUpperCase(t[1].charAt(0)) + t[1].substring(1).replace('-', ' '));
      tags.add(tag);
      records.add(RecordChange.put(Sheet.TAGS, RecordKeys.tag(tag), tag));
    }
    return tags;
  }

  private List<Project> projects(int count, List<Member> real, List<RecordChange> records) {
    List<Project> out = new ArrayList<>();
    Set<String> slugs = new HashSet<>();
    for (int i = 0; i < count && !real.isEmpty(); i++) {
      String title = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)];
      String base = title.toLowerCase(Locale.ROOT).replace(' ', '-');
      String slug = base;
      for (int n = 2; !slugs.add(slug); n++) {
        slug = base + "-" + n;
      }
      Member creator = real.get(random.nextInt(real.size()));
      Instant created = later(creator.person().createdAt());
      Project p = new Project(uuid(created).toString(), slug, title,
          "A project about " + title.toLowerCase(Locale.ROOT) + ".", null,
          "prototyping", creator.person().id(), creator.person().id(), null, created, created);
      out.add(p);
      records.add(RecordChange.put(Sheet.PROJECTS, slug, p));
      ProjectMembership lead = new ProjectMembership(p.id(), creator.person().id(), slug, creator.person().slug(),
          "Maintainer", true, created);
      records.add(RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(lead), lead));
      int members = random.nextInt(30);
      for (int k = 0; k < members; k++) {
        Member m = real.get(random.nextInt(real.size()));
        ProjectMembership pm = new ProjectMembership(p.id(), m.person().id(), slug, m.person().slug(), null, false,
            later(created));
        records.add(RecordChange.put(Sheet.PROJECT_MEMBERSHIPS, RecordKeys.membership(pm), pm));
      }
    }
    return out;
  }

  private void posts(Project p, List<Member> real, List<RecordChange> records) {
    int updates = random.nextInt(5);
    for (int n = 1; n <= updates; n++) {
      ProjectUpdate u = new ProjectUpdate(uuid(p.createdAt()).toString(), p.id(), p.createdById(), n,
          "Progress note " + n + ": we met and made the " + p.title().toLowerCase(Locale.ROOT) + " better.",
          later(p.createdAt()));
      records.add(RecordChange.put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate(p.slug(), n), u));
    }
    if (random.nextInt(2) == 0) {
      ProjectBuzz b = new ProjectBuzz(uuid(p.createdAt()).toString(), p.id(), p.createdById(), "in-the-news",
          p.title() + " in the news", "https://news.example.org/" + p.slug(), null, later(p.createdAt()));
      records.add(RecordChange.put(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(p.slug(), b.slug()), b));
    }
    if (random.nextInt(3) == 0) {
      HelpWantedRole role =
          new HelpWantedRole(uuid(p.createdAt()).toString(), p.id(), p.createdById(), "Front-end developer",
              "Help us build the " + p.title() + " site.", "open", later(p.createdAt()));
      records.add(RecordChange.put(Sheet.HELP_WANTED_ROLES, RecordKeys.helpWantedRole(p.slug(), role.id()), role));
      for (int k = random.nextInt(4); k > 0; k--) {
        Member m = real.get(random.nextInt(real.size()));
        HelpWantedInterest i =
            new HelpWantedInterest(role.id(), m.person().id(), "I would like to help.", later(role.createdAt()));
        records
            .add(RecordChange.put(Sheet.HELP_WANTED_INTEREST, RecordKeys.helpWantedInterest(i, m.person().slug()), i));
      }
    }
  }

  private Instant later(Instant t) {
    Instant x = t.plus(Duration.ofMinutes(1 + random.nextInt(60 * 24 * 60)));
    return x.isAfter(now) ? now : x;
  }

  /** A UUIDv7-shaped id whose time part is {@code t} (so ids sort like the records' dates). */
  private UUID uuid(Instant t) {
    long ms = t.toEpochMilli();
    long msb = (ms << 16) | (0x7L << 12) | random.nextInt(1 << 12);
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb);
  }

  /** Later writes of the same path win (a member who joined a project twice keeps one membership). */
  private static List<RecordChange> dedupe(List<RecordChange> records) {
    java.util.LinkedHashMap<String, RecordChange> byPath = new java.util.LinkedHashMap<>();
    for (RecordChange c : records) {
      byPath.put(c.path(), c);
    }
    return new ArrayList<>(byPath.values());
  }
}
