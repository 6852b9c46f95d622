#!/usr/bin/env bash
# The pipeline benchmarks of issue #3, each beside a peer measured in the same run:
#   - the full job cycle over HTTP and over the event bus with 4/8/16 workers, beside
#     graphile-worker (bench/node) draining as many no-op jobs, with its defaults and batched, and
#     pgbench running the same SQL;
#   - each call's latency (p50, p99) for one worker alone on an idle queue, HTTP and event bus;
#   - idle polling (jobs/next with nothing queued): polls/s, and whether PostgreSQL saw them;
#   - streaming 1 GiB in and out, beside dd and nginx, with the app's heap watched.
# Writes the "## Pipeline: ..." sections of docs/benchmarks.md (one per benchmark; other sections
# stay). Needs PostgreSQL at 127.0.0.1:5432 with trust auth (or SHOTSTASH_TEST_DATABASE_URL), Java
# 17, Maven, Node 20 + npm; installs wrk and nginx from Debian's packages when missing. About 12-14
# minutes on 2 cores (the benchmark itself is cut at 20). See bench/README.md.
# Extra arguments go to the benchmark, e.g. bench/pipeline.sh --parts=cycle --workers=4 --out=-
set -euo pipefail

source "$(dirname "$0")/work.sh"

# --- tools: load generators and peers (Debian's packages, and graphile-worker from npm)
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v pgbench >/dev/null 2>&1 || missing+=(postgresql-client)
command -v jcmd >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
if ((${#missing[@]})); then
  echo "installing ${missing[*]} from Debian's packages"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# graphile-worker is the job cycle's peer only: a run of other parts (--parts=latency,stream) does without it
parts="$(printf '%s\n' "$@" | sed -n 's/^--parts=//p' | tail -n 1)"
if [[ ( -z "$parts" || "$parts" == *cycle* ) && ! -f bench/node/node_modules/graphile-worker/package.json ]]; then
  (cd bench/node && npm ci --no-audit --no-fund --loglevel=error)
fi

# --- the jar and the benchmark, built in a private copy of the tree
source bench/private-build.sh

# Bounded: the benchmark stops itself well before this; the limit only guards against a hang.
timeout --kill-after=20 1200 java -Xmx1g ${BENCH_JAVA_OPTS:-} -Djava.io.tmpdir="$work/tmp" -Dbench.javaVersion="$java_version" \
  -Dbench.commit="$commit" -cp "$classpath" io.shotstash.bench.PipelineBench \
  --jar="$jar" --node="$root/bench/node" --work="$work/run" \
  --out="$root/docs/benchmarks.md" --command="$command" "$@"
