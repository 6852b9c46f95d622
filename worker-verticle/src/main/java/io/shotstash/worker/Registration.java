package io.shotstash.worker;

/**
 * What registration answered, minus the token: the client keeps the token to itself, so the loop
 * (and its logs) never hold it.
 */
public record Registration(String workerId, int heartbeatSeconds, int leaseSeconds) {}
