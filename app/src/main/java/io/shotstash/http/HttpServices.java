package io.shotstash.http;

import graphql.GraphQL;
import io.shotstash.config.Config;
import io.shotstash.media.Storage;
import io.shotstash.media.uploads.ResumableUploads;
import io.shotstash.pipeline.QueueLoops;
import io.shotstash.pipeline.WorkerDirectory;
import io.shotstash.people.Sessions;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.ratelimit.RateLimiter;
import io.vertx.sqlclient.Pool;
import java.util.function.BooleanSupplier;

/** What the HTTP verticles of one node share: settings, stores and the node's services. */
public record HttpServices(
    Config config,
    Pool pool,
    PublicStateHolder publicState,
    PublicDataClient writes,
    Sessions sessions,
    RateLimiter limiter,
    String setupToken,
    BooleanSupplier migrated,
    Storage storage,
    /** The executable GraphQL schema, built once for every HTTP verticle ({@code GraphqlRoutes.build}). */
    GraphQL graphql,
    /** This node's cache of authenticated workers, shared with the job queue (which fills and empties it). */
    WorkerDirectory workers,
    /** Which job-queue instance serves which event loop of this node: worker calls ask their own loop's. */
    QueueLoops queueLoops,
    /** Resumable uploads (tus): rows, locks and partial bytes, shared by the HTTP verticles. */
    ResumableUploads uploads) {}
