package io.shotstash.bus;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.Test;

/** A service's 500 carries the trace id it logged; the HTTP answer must name that one, not a new one. */
class ApiErrorTraceIdTest {

  @Test
  void theTraceIdOfAServicesFailedReplyIsReadBack() {
    String body = ApiError.internal().toJson().put("traceId", "t-123").encode();
    assertThat(ApiError.traceId(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 500, body))).contains("t-123");
  }

  @Test
  void aRefusalOrAFailureWithoutOneHasNone() {
    assertThat(ApiError.traceId(ApiError.notFound().toException())).isEmpty();
    assertThat(ApiError.traceId(new ReplyException(ReplyFailure.TIMEOUT, "timed out"))).isEmpty();
    assertThat(ApiError.traceId(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 500, "{not json"))).isEmpty();
    assertThat(ApiError.traceId(new IllegalStateException("boom"))).isEmpty();
  }
}
