package io.shotstash.http.graphql;

import graphql.GraphQLContext;
import graphql.execution.CoercedVariables;
import graphql.language.IntValue;
import graphql.language.Value;
import graphql.schema.Coercing;
import graphql.schema.CoercingParseLiteralException;
import graphql.schema.CoercingParseValueException;
import graphql.schema.CoercingSerializeException;
import graphql.schema.GraphQLScalarType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;
import java.util.Optional;

/** {@code scalar Long}: byte sizes and sequence numbers do not fit GraphQL's 32-bit Int. */
final class LongScalar {
  private LongScalar() {}

  static final GraphQLScalarType LONG = GraphQLScalarType.newScalar().name("Long")
      .description("A 64-bit integer").coercing(new LongCoercing()).build();

  private static final class LongCoercing implements Coercing<Long, Long> {
    @Override
    public Long serialize(Object value, GraphQLContext context, Locale locale) {
      return toLong(value).orElseThrow(() -> new CoercingSerializeException("Not a 64-bit integer"));
    }

    @Override
    public Long parseValue(Object input, GraphQLContext context, Locale locale) {
      return toLong(input).orElseThrow(() -> new CoercingParseValueException("Expected a 64-bit integer"));
    }

    @Override
    public Long parseLiteral(Value<?> input, CoercedVariables variables, GraphQLContext context, Locale locale) {
      if (input instanceof IntValue iv && iv.getValue().bitLength() < 64) {
        return iv.getValue().longValue();
      }
      throw new CoercingParseLiteralException("Expected a 64-bit integer");
    }

    @Override
    public Value<?> valueToLiteral(Object input, GraphQLContext context, Locale locale) {
      return IntValue.newIntValue(BigInteger.valueOf(serialize(input, context, locale))).build();
    }

    private static Optional<Long> toLong(Object value) {
      if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
        return Optional.of(((Number) value).longValue());
      }
      if (value instanceof Number n) {
        try {
          return Optional.of(new BigDecimal(n.toString()).longValueExact());
        } catch (ArithmeticException | NumberFormatException e) {
          return Optional.empty();
        }
      }
      return Optional.empty();
    }
  }
}
