#!/usr/bin/env bash
# Git-writer commits per second at 1,000 and 20,000 people, beside the raw JGit path-only commit
# loop on the same repository in the same run. Writes the "## Git writer: commits per second"
# section of docs/benchmarks.md. Needs PostgreSQL at 127.0.0.1:5432 with trust auth (or
# SHOTSTASH_TEST_DATABASE_URL). About 4 minutes on an idle 2-core machine. See bench/README.md.
# Extra arguments go to the benchmark, e.g. bench/git-writer.sh --sizes=1000 --commits=500 --out=-
set -euo pipefail

cd "$(dirname "$0")/.."
root="$(pwd)"
mkdir -p target
work="$(mktemp -d "$root/target/bench-git-writer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/xdg" "$work/tmp"
export XDG_CONFIG_HOME="$work/xdg"   # JGit would otherwise create ~/.config/jgit

# Compile, then run from a snapshot of the class folders: other builds in this tree may rewrite
# target/ while the benchmark runs.
for attempt in 1 2 3; do
  source bench/classpath.sh test-compile
  if [[ -f "$work/cp/bench_target_test-classes/io/shotstash/bench/GitWriterBench\$Seeds.class" \
     && -f "$work/cp/app_target_test-classes/io/shotstash/testing/TestDatabase.class" \
     && -f "$work/cp/app_target_classes/io/shotstash/publicdata/write/GitWriterVerticle.class" ]]; then
    break
  fi
  [[ $attempt == 3 ]] && { echo "target/ keeps changing under us; try again" >&2; exit 1; }
  sleep 5
done

java_version="$(java -version 2>&1 | head -n 3 | paste -sd ';' - | sed 's/;/; /g')"
command="bench/git-writer.sh${*:+ $*}"

exec_java=(java -Xmx2g -Djava.io.tmpdir="$work/tmp" -Dbench.javaVersion="$java_version"
  -cp "$classpath" io.shotstash.bench.GitWriterBench --command="$command" "$@")
"${exec_java[@]}"
