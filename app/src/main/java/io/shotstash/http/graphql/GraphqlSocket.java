package io.shotstash.http.graphql;

import graphql.ExecutionInput;
import graphql.ExecutionResult;
import graphql.GraphQL;
import graphql.GraphQLError;
import graphql.execution.SubscriptionExecutionStrategy;
import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Unavailable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One graphql-transport-ws connection. Every operation runs as the socket's caller is <em>now</em>:
 * the token the socket was opened with (the upgrade's bearer header or cookie, or a bearer token in
 * the connection_init payload, which wins) is resolved again before each operation, so a level
 * change applies at the next operation, and a session that ended (logout, purge, expiry, a revoked
 * grant) closes the socket with 4401 instead of running anything. {@link GraphqlSockets} also asks
 * open sockets to {@link #recheck()} when sessions end, so running subscriptions end with it.
 *
 * <p>Everything runs on the context of the HTTP verticle that took the upgrade: no locks.
 */
final class GraphqlSocket {
  private static final Logger log = LoggerFactory.getLogger(GraphqlSocket.class);

  /** Close codes of graphql-transport-ws (and the WebSocket's own 1011 for our failures). */
  static final short BAD_MESSAGE = 4400;
  static final short UNAUTHORIZED = 4401;
  static final short INIT_TIMEOUT = 4408;
  static final short DUPLICATE_ID = 4409;
  static final short TOO_MANY_INITS = 4429;
  static final short SERVER_ERROR = 1011;

  /** How long a client has to send connection_init (the protocol's usual 3 s). */
  static final long INIT_TIMEOUT_MS = 3_000;
  /** Operations running at once on one socket; one more is answered with an error message. */
  static final int MAX_OPERATIONS = 64;

  private enum Phase {
    WAITING,
    INITIALISING,
    READY,
    CLOSED
  }

  private final ServerWebSocket socket;
  private final GraphQL graphQL;
  private final Context context;
  private final Function<String, Future<Actor>> resolve;
  private final Consumer<GraphqlSocket> onClosed;
  private final Map<String, Operation> operations = new HashMap<>();
  /** The token of the upgrade request; connection_init may replace it. */
  private String credential;
  /** Who the socket signed in as, for the registry's checks; null while anonymous. */
  private String personId;
  private Phase phase = Phase.WAITING;
  private long initTimer;

  GraphqlSocket(ServerWebSocket socket, GraphQL graphQL, Context context, String upgradeCredential,
      Function<String, Future<Actor>> resolve, Consumer<GraphqlSocket> onClosed) {
    this.socket = socket;
    this.graphQL = graphQL;
    this.context = context;
    this.credential = upgradeCredential;
    this.resolve = resolve;
    this.onClosed = onClosed;
  }

  void start() {
    socket.textMessageHandler(this::onFrame);
    socket.binaryMessageHandler(buffer -> onFrame(buffer.toString()));
    socket.exceptionHandler(err -> log.debug("GraphQL WebSocket error", err));
    socket.closeHandler(v -> onClose());
    initTimer =
        context.owner().setTimer(INIT_TIMEOUT_MS, id -> close(INIT_TIMEOUT, "Connection initialisation timeout"));
  }

  /** The person the socket acts for, or null (anonymous, or not yet initialised). */
  String personId() {
    return personId;
  }

  /**
   * Resolves the socket's token again; closes with 4401 when it no longer names anyone. A failed
   * lookup (the database is away) changes nothing: the next operation asks again.
   */
  void recheck() {
    if (phase != Phase.READY || personId == null) {
      return;
    }
    resolve.apply(credential).onSuccess(actor -> {
      if (!signedIn(actor)) {
        close(UNAUTHORIZED, "Unauthorized: the session has ended");
      }
    });
  }

  // ---- frames from the client ----

  private void onFrame(String text) {
    if (phase == Phase.CLOSED) {
      return;
    }
    TransportFrame frame = TransportFrame.parse(text);
    if (frame instanceof TransportFrame.Invalid invalid) {
      close(BAD_MESSAGE, invalid.reason());
    } else if (frame instanceof TransportFrame.Ping ping) {
      socket.writeTextMessage(TransportFrame.pong(ping.payload()));
    } else if (frame instanceof TransportFrame.ConnectionInit init) {
      onInit(init);
    } else if (frame instanceof TransportFrame.Subscribe subscribe) {
      if (phase != Phase.READY) {
        close(UNAUTHORIZED, "Unauthorized");
      } else {
        onSubscribe(subscribe);
      }
    } else if (frame instanceof TransportFrame.Complete complete) {
      Operation op = operations.remove(complete.id());
      if (op != null) {
        op.cancel();
      }
    } // a pong needs no answer
  }

  private void onInit(TransportFrame.ConnectionInit init) {
    if (phase != Phase.WAITING) {
      close(TOO_MANY_INITS, "Too many initialisation requests");
      return;
    }
    context.owner().cancelTimer(initTimer);
    phase = Phase.INITIALISING;
    String payloadToken = GraphqlRoutes.payloadBearer(init.payload());
    if (payloadToken != null) {
      credential = payloadToken;
    }
    resolve.apply(credential).onComplete(ar -> {
      if (phase == Phase.CLOSED) {
        return;
      }
      if (ar.failed()) {
        log.warn("could not resolve the caller of a GraphQL WebSocket", ar.cause());
        close(SERVER_ERROR, "Could not check who you are; try again");
        return;
      }
      if (signedIn(ar.result())) {
        personId = personIdOf(ar.result());
      } else {
        credential = null; // an anonymous socket stays anonymous
      }
      phase = Phase.READY;
      socket.writeTextMessage(TransportFrame.ack());
    });
  }

  private void onSubscribe(TransportFrame.Subscribe request) {
    if (operations.containsKey(request.id())) {
      close(DUPLICATE_ID, "Subscriber for " + request.id() + " already exists");
      return;
    }
    if (operations.size() >= MAX_OPERATIONS) {
      socket.writeTextMessage(TransportFrame.error(request.id(), errors(ApiError.of(400, "bad_request",
          "At most " + MAX_OPERATIONS + " operations may run at once on one socket"))));
      return;
    }
    Operation op = new Operation(request.id());
    operations.put(request.id(), op);
    Future<Actor> caller = credential == null ? Future.succeededFuture(Actor.ANONYMOUS) : resolve.apply(credential);
    caller.onComplete(ar -> {
      if (op.cancelled || phase == Phase.CLOSED) {
        return;
      }
      if (ar.failed()) {
        log.warn("could not resolve the caller of a GraphQL operation", ar.cause());
        finish(op, TransportFrame.error(op.id, errors(Unavailable.of(ar.cause()).orElse(ApiError.internal()))));
        return;
      }
      if (credential != null && !signedIn(ar.result())) {
        close(UNAUTHORIZED, "Unauthorized: the session has ended");
        return;
      }
      execute(op, request, ar.result());
    });
  }

  private void execute(Operation op, TransportFrame.Subscribe request, Actor actor) {
    Map<Object, Object> graphqlContext = new HashMap<>();
    graphqlContext.put(GraphqlAuth.TRANSPORT, GraphqlAuth.WS);
    graphqlContext.put(GraphqlAuth.ACTOR, actor);
    graphqlContext.put(SubscriptionExecutionStrategy.KEEP_SUBSCRIPTION_EVENTS_ORDERED, true);
    ExecutionInput.Builder input = ExecutionInput.newExecutionInput().query(request.query())
        .graphQLContext(graphqlContext);
    if (request.operationName() != null) {
      input.operationName(request.operationName());
    }
    if (request.variables() != null) {
      input.variables(request.variables().getMap());
    }
    if (request.extensions() != null) {
      input.extensions(request.extensions().getMap());
    }
    graphQL.executeAsync(input).whenComplete((result, failure) -> context.runOnContext(v -> {
      if (op.cancelled || phase == Phase.CLOSED) {
        return;
      }
      if (failure != null) {
        String traceId = UUID.randomUUID().toString();
        log.error("GraphQL operation over the WebSocket failed [traceId={}]", traceId, failure);
        finish(op, TransportFrame.error(op.id, errors(ApiError.internal())));
      } else if (result.getData() instanceof Publisher<?> stream) {
        @SuppressWarnings("unchecked")
        Publisher<ExecutionResult> events = (Publisher<ExecutionResult>) stream;
        events.subscribe(op);
      } else if (!result.isDataPresent()) {
        // refused before it ran (syntax, validation, limits): the protocol's error message
        finish(op,
            TransportFrame.error(op.id, result.getErrors().stream().map(GraphQLError::toSpecification).toList()));
      } else {
        socket.writeTextMessage(TransportFrame.next(op.id, result.toSpecification()));
        finish(op, TransportFrame.complete(op.id));
      }
    }));
  }

  /** Sends the operation's last message and forgets it. */
  private void finish(Operation op, String lastMessage) {
    if (operations.remove(op.id, op)) {
      socket.writeTextMessage(lastMessage);
    }
  }

  private static List<Object> errors(ApiError error) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("message", error.message());
    e.put("extensions", GraphqlErrors.extensions(error));
    return List.of(e);
  }

  private static boolean signedIn(Actor actor) {
    return actor instanceof Actor.Member || actor instanceof Actor.Agent;
  }

  private static String personIdOf(Actor actor) {
    return actor instanceof Actor.Member m ? m.personId() : ((Actor.Agent) actor).personId();
  }

  // ---- closing ----

  private void close(short code, String reason) {
    if (phase == Phase.CLOSED) {
      return;
    }
    endOperations();
    phase = Phase.CLOSED;
    socket.close(code, reason);
  }

  private void onClose() {
    context.owner().cancelTimer(initTimer);
    endOperations();
    phase = Phase.CLOSED;
    onClosed.accept(this);
  }

  private void endOperations() {
    List<Operation> running = List.copyOf(operations.values());
    operations.clear();
    running.forEach(Operation::cancel);
  }

  /**
   * One running operation; for a subscription, the subscriber of its stream of results. Signals may
   * arrive on other threads: each is handled on the socket's context, one result at a time (the next
   * is requested once the previous one is written).
   */
  private final class Operation implements Subscriber<ExecutionResult> {
    final String id;
    boolean cancelled;
    Subscription subscription;

    Operation(String id) {
      this.id = id;
    }

    void cancel() {
      cancelled = true;
      if (subscription != null) {
        subscription.cancel();
      }
    }

    @Override
    public void onSubscribe(Subscription s) {
      context.runOnContext(v -> {
        subscription = s;
        if (cancelled) {
          s.cancel();
        } else {
          s.request(1);
        }
      });
    }

    @Override
    public void onNext(ExecutionResult result) {
      unlessCancelled(() -> socket.writeTextMessage(TransportFrame.next(id, result.toSpecification()))
          .onComplete(ar -> {
            if (!cancelled) {
              subscription.request(1);
            }
          }));
    }

    @Override
    public void onError(Throwable failure) {
      unlessCancelled(() -> {
        ApiError refusal = ApiError.from(failure);
        if (refusal == null) {
          String traceId = UUID.randomUUID().toString();
          log.error("GraphQL subscription failed [traceId={}]", traceId, failure);
          refusal = ApiError.internal();
        }
        finish(this, TransportFrame.error(id, errors(refusal)));
      });
    }

    @Override
    public void onComplete() {
      unlessCancelled(() -> finish(this, TransportFrame.complete(id)));
    }

    /** Runs {@code step} on the socket's context, unless the operation is cancelled by then. */
    private void unlessCancelled(Runnable step) {
      context.runOnContext(v -> {
        if (!cancelled) {
          step.run();
        }
      });
    }
  }

  /** For tests and logs: never the token. */
  @Override
  public String toString() {
    return new JsonObject().put("phase", phase.name()).put("personId", personId).put("operations", operations.size())
        .encode();
  }
}
