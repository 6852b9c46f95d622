package io.shotstash.http.graphql;

import graphql.ErrorClassification;
import graphql.ErrorType;
import graphql.ExecutionResult;
import graphql.GraphQLError;
import graphql.GraphqlErrorBuilder;
import graphql.execution.DataFetcherExceptionHandler;
import graphql.execution.DataFetcherExceptionHandlerParameters;
import graphql.execution.DataFetcherExceptionHandlerResult;
import graphql.execution.instrumentation.Instrumentation;
import graphql.execution.instrumentation.InstrumentationState;
import graphql.execution.instrumentation.parameters.InstrumentationExecutionParameters;
import graphql.execution.instrumentation.parameters.InstrumentationFieldFetchParameters;
import graphql.schema.DataFetcher;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every GraphQL error carries {@code extensions.code}: our refusals ({@link ApiError}) their code
 * (upper case; {@code validation_failed} as BAD_USER_INPUT with its {@code fields}); anything
 * unexpected INTERNAL with no details (logged with a trace id); errors of the engine itself
 * (syntax, validation, limits) a code from their classification. Also keeps introspection for
 * signed-in people.
 */
final class GraphqlErrors implements DataFetcherExceptionHandler, Instrumentation {
  private static final Logger log = LoggerFactory.getLogger(GraphqlErrors.class);
  static final String INTERNAL = "INTERNAL";

  @Override
  public CompletableFuture<DataFetcherExceptionHandlerResult> handleException(
      DataFetcherExceptionHandlerParameters params) {
    Throwable failure = unwrap(params.getException());
    ApiError refusal = ApiError.from(failure);
    GraphqlErrorBuilder<?> builder = GraphqlErrorBuilder.newError(params.getDataFetchingEnvironment())
        .errorType(ErrorType.DataFetchingException);
    if (refusal == null) {
      refusal = Unavailable.of(failure).orElse(null);
    }
    if (refusal == null) {
      String traceId = UUID.randomUUID().toString();
      log.error("GraphQL field {} failed [traceId={}]", params.getPath(), traceId, failure);
      refusal = ApiError.internal();
    }
    GraphQLError error = builder.message("%s", refusal.message()).extensions(extensions(refusal)).build();
    return CompletableFuture.completedFuture(DataFetcherExceptionHandlerResult.newResult(error).build());
  }

  /** The GraphQL code of a refusal. */
  static String code(ApiError error) {
    return switch (error.code()) {
      case "validation_failed" -> "BAD_USER_INPUT";
      case "internal_error" -> INTERNAL;
      default -> error.code().toUpperCase(Locale.ROOT);
    };
  }

  static Map<String, Object> extensions(ApiError error) {
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("code", code(error));
    if (error.fields() != null) {
      ext.put("fields", error.fields().getMap());
    }
    if (error.retryAfterSeconds() != null) {
      ext.put("retryAfter", error.retryAfterSeconds());
    }
    return ext;
  }

  /** One error in the shape of a GraphQL response ({@code {message, extensions: {code}}}). */
  static Map<String, Object> body(String message, String code) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", message);
    error.put("extensions", Map.of("code", code));
    return Map.of("errors", List.of(error));
  }

  private static Throwable unwrap(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }

  // ---- the engine's own errors ----

  @Override
  public CompletableFuture<ExecutionResult> instrumentExecutionResult(ExecutionResult result,
      InstrumentationExecutionParameters parameters, InstrumentationState state) {
    List<GraphQLError> errors = result.getErrors();
    if (errors.stream().allMatch(GraphqlErrors::hasCode)) {
      return CompletableFuture.completedFuture(result);
    }
    List<GraphQLError> coded = new ArrayList<>(errors.size());
    for (GraphQLError e : errors) {
      coded.add(hasCode(e) ? e : withCode(e));
    }
    return CompletableFuture.completedFuture(result.transform(b -> b.errors(coded)));
  }

  private static boolean hasCode(GraphQLError e) {
    return e.getExtensions() != null && e.getExtensions().get("code") instanceof String;
  }

  private static GraphQLError withCode(GraphQLError e) {
    Map<String, Object> ext =
        e.getExtensions() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(e.getExtensions());
    String code = codeOf(e.getErrorType());
    ext.put("code", code);
    String message = INTERNAL.equals(code) ? ApiError.internal().message() : e.getMessage();
    GraphqlErrorBuilder<?> b = GraphqlErrorBuilder.newError().message("%s", message).errorType(e.getErrorType())
        .extensions(ext).locations(e.getLocations());
    if (e.getPath() != null) {
      b.path(e.getPath());
    }
    return b.build();
  }

  private static String codeOf(ErrorClassification type) {
    if (type == ErrorType.InvalidSyntax) {
      return "GRAPHQL_PARSE_FAILED";
    }
    if (type == ErrorType.ValidationError) {
      return "GRAPHQL_VALIDATION_FAILED";
    }
    if (type == ErrorType.OperationNotSupported || type == ErrorType.ExecutionAborted) {
      return "BAD_REQUEST";
    }
    return type instanceof ErrorType ? INTERNAL : "BAD_REQUEST";
  }

  // ---- introspection is for signed-in people too ----

  @Override
  public DataFetcher<?> instrumentDataFetcher(DataFetcher<?> fetcher, InstrumentationFieldFetchParameters parameters,
      InstrumentationState state) {
    if (!parameters.getField().getName().startsWith("__")) {
      return fetcher;
    }
    return env -> {
      GraphqlAuth.member(env);
      return fetcher.get(env);
    };
  }
}
