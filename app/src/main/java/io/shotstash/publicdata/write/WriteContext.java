package io.shotstash.publicdata.write;

import io.shotstash.publicdata.PublicState;
import io.vertx.sqlclient.SqlConnection;
import java.time.Instant;

/**
 * What a rule sees inside the write mutex: the public state every earlier write left, the open
 * PostgreSQL transaction (for the private rows it reads and writes), and the one clock reading of
 * this write.
 */
public record WriteContext(PublicState state, SqlConnection tx, Instant now) {}
