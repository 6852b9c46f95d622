#!/usr/bin/env bash
# The cluster's figures (issue #7): job cycles drained by 16 HTTP workers on one node (`serve`), one
# node (`serve --cluster`) and three nodes; failover time of the git writer after kill -9 and after a
# freeze (SIGSTOP), three rounds each. Writes the "## Cluster: failover and job cycles" section of
# docs/benchmarks.md (other sections stay). Needs PostgreSQL at 127.0.0.1:5432 with trust auth (or
# SHOTSTASH_TEST_DATABASE_URL), Java 17 and Maven. About 5 minutes on 2 cores. See bench/README.md.
# Extra arguments go to the benchmark, e.g. bench/cluster.sh --rounds=1 --jobs=1000 --out=-
set -euo pipefail

cd "$(dirname "$0")/.."
root="$(pwd)"
mkdir -p target
work="$(mktemp -d "$root/target/bench-cluster.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/xdg" "$work/tmp"
export XDG_CONFIG_HOME="$work/xdg"   # JGit would otherwise create ~/.config/jgit

# The shaded jar the nodes run (each run copies it), and the test classes that drive them, taken
# from a snapshot: other builds in this tree may rewrite target/ while the benchmark runs.
source bench/classpath.sh package
cp target/shotstash.jar "$work/shotstash.jar"

command="bench/cluster.sh${*:+ $*}"
java -Xmx1g -Djava.io.tmpdir="$work/tmp" -Dshotstash.jar="$work/shotstash.jar" \
  -cp "$classpath" io.shotstash.bench.ClusterBench --command="$command" "$@"
