package io.shotstash.app;

import io.shotstash.community.PeopleWrites;
import io.shotstash.community.ProjectWrites;
import io.shotstash.moderation.ModerationWrites;
import io.shotstash.moderation.PrivateDataWrites;
import io.shotstash.people.AccountWrites;
import io.shotstash.people.GitHubSignup;
import io.shotstash.publicdata.write.WriteHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Every write rule the git writer knows, by action: the one list the app (and its benchmarks) deploy. */
public final class WriteRules {
  private WriteRules() {}

  public static Map<String, WriteHandler> all() {
    List<WriteHandler> all = new ArrayList<>(AccountWrites.handlers());
    all.addAll(PeopleWrites.handlers());
    all.addAll(ProjectWrites.handlers());
    all.addAll(ModerationWrites.handlers());
    all.addAll(PrivateDataWrites.handlers());
    all.add(GitHubSignup.handler());
    Map<String, WriteHandler> byAction = new TreeMap<>();
    for (WriteHandler h : all) {
      if (byAction.put(h.action(), h) != null) {
        throw new IllegalStateException("two write rules for " + h.action());
      }
    }
    return byAction;
  }
}
