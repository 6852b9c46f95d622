package io.shotstash.publicdata.write;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.CommitMessage;
import java.time.Instant;
import java.time.ZoneOffset;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * Who a commit is by: the actor's pseudonym ({@code <fullName> <<slug>@users.noreply.<domain>>}),
 * never a real email, and the actor trailers. The system commits as Shotstash.
 */
public final class Attribution {
  private final String noreplyDomain;

  public Attribution(String noreplyDomain) {
    this.noreplyDomain = noreplyDomain;
  }

  public PersonIdent ident(Actor actor, Instant when) {
    if (actor instanceof Actor.Member m) {
      return new PersonIdent(m.fullName(), m.slug() + "@users.noreply." + noreplyDomain, when, ZoneOffset.UTC);
    }
    if (actor instanceof Actor.Agent a) {
      return new PersonIdent(a.fullName(), a.slug() + "@users.noreply." + noreplyDomain, when, ZoneOffset.UTC);
    }
    return new PersonIdent("Shotstash", "system@users.noreply." + noreplyDomain, when, ZoneOffset.UTC);
  }

  /** The commit subject: {@code <actor-slug>: <METHOD> <path>}, or {@code system: <what>}. */
  public static String subject(Actor actor, String method, String path) {
    String request = method + " " + stripQuery(path);
    if (actor instanceof Actor.Member m) {
      return m.slug() + ": " + request;
    }
    if (actor instanceof Actor.Agent a) {
      return a.slug() + ": " + request;
    }
    return "system: " + request;
  }

  /** Starts a message for this command with the subject and the action and subject trailers. */
  public static CommitMessage.Builder message(WriteCommand command, String action, String subjectType,
      String subjectId, String subjectSlug) {
    return CommitMessage.subject(subject(command.actor(), command.method(), command.path()))
        .trailer("Action", action)
        .trailer("Subject-Type", subjectType)
        .trailer("Subject-Id", subjectId)
        .trailer("Subject-Slug", subjectSlug);
  }

  /** Appends the actor trailers (always last but for purge and evidence trailers). */
  public static CommitMessage.Builder actorTrailers(CommitMessage.Builder builder, Actor actor) {
    if (actor instanceof Actor.Member m) {
      return builder.trailer("Actor-Slug", m.slug()).trailer("Actor-Kind", "human")
          .trailer("Actor-Account-Level", m.level().wire());
    }
    if (actor instanceof Actor.Agent a) {
      return builder.trailer("Actor-Slug", a.slug()).trailer("Actor-Kind", "agent")
          .trailer("Actor-Account-Level", "user").trailer("Grant-Id", a.grantId());
    }
    return builder.trailer("Actor-Slug", "system").trailer("Actor-Kind", "system");
  }

  private static String stripQuery(String path) {
    int q = path == null ? -1 : path.indexOf('?');
    return q < 0 ? String.valueOf(path) : path.substring(0, q);
  }
}
