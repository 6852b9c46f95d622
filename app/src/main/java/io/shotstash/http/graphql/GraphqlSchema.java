package io.shotstash.http.graphql;

import graphql.GraphQL;
import graphql.analysis.MaxQueryComplexityInstrumentation;
import graphql.execution.instrumentation.ChainedInstrumentation;
import graphql.language.Document;
import graphql.parser.Parser;
import graphql.parser.ParserEnvironment;
import graphql.parser.ParserOptions;
import graphql.schema.DataFetcher;
import graphql.schema.GraphQLSchema;
import graphql.schema.idl.FieldWiringEnvironment;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import graphql.schema.idl.TypeDefinitionRegistry;
import graphql.schema.idl.WiringFactory;
import io.shotstash.ratelimit.RateLimiter;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Builds the executable schema: {@code graphql/schema.graphqls} wired to the fetchers. Objects
 * travel as the JSON the services answer, so every field without a fetcher of its own reads the
 * same-named member of its parent's JSON object.
 */
final class GraphqlSchema {
  static final String RESOURCE = "graphql/schema.graphqls";
  /** Fields per operation (fragments expanded); the introspection query of GraphiQL fits well below. */
  static final int MAX_COMPLEXITY = 1000;

  private GraphqlSchema() {}

  /** The schema file, parsed once for every HTTP verticle (parsing is most of building the schema). */
  private static final class Sdl {
    static final Document DOCUMENT = Parser.parse(ParserEnvironment.newParserEnvironment().document(schemaText())
        .parserOptions(ParserOptions.getDefaultSdlParserOptions()).build()); // as SchemaParser parses it
  }

  static GraphQL build(Vertx vertx, RateLimiter limiter) {
    Bus bus = new Bus(vertx);
    LibraryFetchers library = new LibraryFetchers(bus);
    PipelineFetchers pipeline = new PipelineFetchers(bus, new JobEvents(vertx));
    RuntimeWiring wiring = RuntimeWiring.newRuntimeWiring()
        .scalar(LongScalar.LONG)
        .wiringFactory(new JsonWiring())
        .type("Query", t -> t
            .dataFetcher("me", library.me())
            .dataFetcher("folders", library.folders())
            .dataFetcher("folder", library.folder())
            .dataFetcher("file", library.file())
            .dataFetcher("pipelineJob", pipeline.pipelineJob())
            .dataFetcher("availableKinds", pipeline.availableKinds())
            .dataFetcher("pipelineWorkers", pipeline.pipelineWorkers())
            .dataFetcher("pipelineKinds", pipeline.pipelineKinds())
            .dataFetcher("pipelineJobCounts", pipeline.pipelineJobCounts())
            .dataFetcher("pipelineMinutes", pipeline.pipelineMinutes())
            .dataFetcher("pipelineJobs", pipeline.pipelineJobs()))
        .type("Mutation", t -> t
            .dataFetcher("createFolder", library.createFolder())
            .dataFetcher("trashFile", library.trashFile())
            .dataFetcher("restoreFile", library.restoreFile())
            .dataFetcher("trashFolder", library.trashFolder())
            .dataFetcher("enqueueJob", pipeline.enqueueJob())
            .dataFetcher("enqueueFolder", pipeline.enqueueFolder())
            .dataFetcher("cancelJob", pipeline.cancelJob())
            .dataFetcher("retryJob", pipeline.retryJob())
            .dataFetcher("revokeWorker", pipeline.revokeWorker()))
        .type("Subscription", t -> t.dataFetcher("jobUpdated", pipeline.jobUpdated()))
        .type("Folder", t -> t.dataFetcher("files", library.folderFiles()))
        .type("File", t -> t
            .dataFetcher("downloadUrl", library.fileDownloadUrl())
            .dataFetcher("processedVersions", library.fileVersions())
            .dataFetcher("jobs", library.fileJobs())
            .dataFetcher("currentJob", library.fileCurrentJob()))
        .type("PipelineJob", t -> t.dataFetcher("outputVersion", pipeline.outputVersion()))
        .build();
    TypeDefinitionRegistry types = new SchemaParser().buildRegistry(Sdl.DOCUMENT);
    GraphQLSchema schema = new SchemaGenerator().makeExecutableSchema(types, wiring);
    GraphqlErrors errors = new GraphqlErrors();
    return GraphQL.newGraphQL(schema)
        .defaultDataFetcherExceptionHandler(errors)
        .instrumentation(new ChainedInstrumentation(new MaxQueryComplexityInstrumentation(MAX_COMPLEXITY),
            new MutationLimits(limiter), errors))
        .build();
  }

  static String schemaText() {
    try (InputStream in = GraphqlSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The default fetcher: the field's member of the parent JSON object (or map). */
  private static final class JsonWiring implements WiringFactory {
    private static final DataFetcher<Object> MEMBER = env -> {
      Object source = env.getSource();
      String name = env.getFieldDefinition().getName();
      if (source instanceof JsonObject json) {
        return json.getValue(name);
      }
      return source instanceof Map<?, ?> map ? map.get(name) : null;
    };

    @Override
    public DataFetcher<?> getDefaultDataFetcher(FieldWiringEnvironment environment) {
      return MEMBER;
    }
  }
}
