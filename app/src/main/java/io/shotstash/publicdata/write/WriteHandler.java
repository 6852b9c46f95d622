package io.shotstash.publicdata.write;

import io.vertx.core.Future;

/**
 * The rule of one write action. It runs inside the write mutex, against the state every earlier
 * write left: it answers a plan, or fails with an {@link io.shotstash.bus.ApiError} refusal (then
 * nothing changes). It may read private rows through the context's transaction; it must not write
 * them itself (that is the plan's private work) and must not block.
 */
public interface WriteHandler {
  String action();

  Future<WritePlan> plan(WriteContext context, WriteCommand command);

  /** The rule part of a handler, so a rule can be a method reference. */
  @FunctionalInterface
  interface Rule {
    Future<WritePlan> plan(WriteContext context, WriteCommand command);
  }

  /** A handler for {@code action} that runs {@code rule}. */
  static WriteHandler of(String action, Rule rule) {
    return new WriteHandler() {
      @Override
      public String action() {
        return action;
      }

      @Override
      public Future<WritePlan> plan(WriteContext context, WriteCommand command) {
        return rule.plan(context, command);
      }
    };
  }
}
