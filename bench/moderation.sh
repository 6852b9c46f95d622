#!/usr/bin/env bash
# The community and moderation benchmarks of issues #5 and #6, at 1,000 and 32,000 members:
#   - seed-demo --members N, then the app's start-up to ready (goal: under 5 s at 32,000);
#   - the staff roster, page 1 with q filters (goal: p50 under 10 ms at 32,000);
#   - vote commits per second through the app's git writer beside the raw JGit commit loop on the
#     same repository (goal: flat from 1,000 to 32,000, at least half the raw rate).
# Writes the "## Community: start-up after seed-demo" and "## Moderation: roster and vote commits"
# sections of docs/benchmarks.md. Needs PostgreSQL at 127.0.0.1:5432 with trust auth (or
# SHOTSTASH_TEST_DATABASE_URL), Java 17 and Maven. About 6 minutes on 2 cores. See bench/README.md.
# Extra arguments go to the benchmark, e.g. bench/moderation.sh --sizes=1000 --commits=300 --out=-
set -euo pipefail

source "$(dirname "$0")/work.sh"

# --- the jar and the benchmark, built in a private copy of the tree
source bench/private-build.sh

# Bounded: the limit only guards against a hang.
timeout --kill-after=20 1800 java -Xmx2g -Djava.io.tmpdir="$work/tmp" -Dbench.javaVersion="$java_version" \
  -Dbench.commit="$commit" -cp "$classpath" io.shotstash.bench.ModerationBench \
  --jar="$jar" --work="$work/run" \
  --out="$root/docs/benchmarks.md" --command="$command" "$@"
