package io.shotstash.http.graphql;

import graphql.ExecutionResult;
import graphql.GraphqlErrorBuilder;
import graphql.execution.AbortExecutionException;
import graphql.execution.ExecutionContext;
import graphql.execution.instrumentation.Instrumentation;
import graphql.execution.instrumentation.InstrumentationContext;
import graphql.execution.instrumentation.InstrumentationState;
import graphql.execution.instrumentation.SimpleInstrumentationContext;
import graphql.execution.instrumentation.parameters.InstrumentationExecuteOperationParameters;
import graphql.execution.instrumentation.parameters.InstrumentationFieldFetchParameters;
import graphql.language.Field;
import graphql.language.FragmentDefinition;
import graphql.language.FragmentSpread;
import graphql.language.InlineFragment;
import graphql.language.OperationDefinition;
import graphql.language.Selection;
import graphql.language.SelectionSet;
import graphql.schema.DataFetcher;
import io.shotstash.auth.Actor;
import io.shotstash.ratelimit.RateLimiter;
import io.shotstash.ratelimit.WriteLimit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * GraphQL mutations are writes like any other: each top-level mutation field counts against the
 * caller's writes a minute ({@link WriteLimit}, shared with the REST API), and one operation may
 * hold at most {@link #MAX_PER_OPERATION} of them (aliases and fragments counted), so a single
 * request cannot carry hundreds. Refusals: {@code TOO_MANY_MUTATIONS} before anything runs, and
 * {@code RATE_LIMITED} on each field past the limit (the fields before it have run).
 */
final class MutationLimits implements Instrumentation {
  static final int MAX_PER_OPERATION = 10;

  private final RateLimiter limiter;

  MutationLimits(RateLimiter limiter) {
    this.limiter = limiter;
  }

  @Override
  public InstrumentationContext<ExecutionResult> beginExecuteOperation(
      InstrumentationExecuteOperationParameters parameters,
      InstrumentationState state) {
    ExecutionContext execution = parameters.getExecutionContext();
    OperationDefinition operation = execution.getOperationDefinition();
    if (operation.getOperation() == OperationDefinition.Operation.MUTATION) {
      int count = topLevelFields(operation.getSelectionSet(), execution.getFragmentsByName(), 0);
      if (count > MAX_PER_OPERATION) {
        throw new AbortExecutionException(List.of(GraphqlErrorBuilder.newError()
            .message("One operation may hold at most %d mutations; this one holds %d", MAX_PER_OPERATION, count)
            .extensions(Map.of("code", "TOO_MANY_MUTATIONS")).build()));
      }
    }
    return SimpleInstrumentationContext.noOp();
  }

  /** The fields an operation's root selection runs, through fragments (a fragment spread twice counts twice). */
  static int topLevelFields(SelectionSet set, Map<String, FragmentDefinition> fragments, int depth) {
    if (set == null || depth > 16) { // validation has refused cycles already; this only bounds the walk
      return 0;
    }
    int count = 0;
    for (Selection<?> selection : set.getSelections()) {
      if (selection instanceof Field) {
        count++;
      } else if (selection instanceof InlineFragment inline) {
        count += topLevelFields(inline.getSelectionSet(), fragments, depth + 1);
      } else if (selection instanceof FragmentSpread spread && fragments.get(spread.getName()) != null) {
        count += topLevelFields(fragments.get(spread.getName()).getSelectionSet(), fragments, depth + 1);
      }
    }
    return count;
  }

  @Override
  public DataFetcher<?> instrumentDataFetcher(DataFetcher<?> fetcher, InstrumentationFieldFetchParameters parameters,
      InstrumentationState state) {
    boolean mutationField =
        parameters.getExecutionStepInfo().getPath().getLevel() == 1 && !parameters.isTrivialDataFetcher()
            && parameters.getExecutionContext().getOperationDefinition()
                .getOperation() == OperationDefinition.Operation.MUTATION;
    if (!mutationField) {
      return fetcher;
    }
    return env -> {
      // anonymous callers are refused by the fetcher itself, and agents have no GraphQL writes
      if (!(GraphqlAuth.actor(env.getGraphQlContext()) instanceof Actor.Member member)) {
        return fetcher.get(env);
      }
      return WriteLimit.admit(limiter, member.personId()).toCompletionStage().thenCompose(admitted -> {
        try {
          Object result = fetcher.get(env);
          return result instanceof CompletionStage<?> stage ? stage.thenApply(r -> (Object) r)
              : CompletableFuture.completedFuture(result);
        } catch (Exception e) {
          return CompletableFuture.failedFuture(e);
        }
      });
    };
  }
}
