#!/usr/bin/env bash
# The claim with 100,000 queued jobs, before and after job priority (issue #20, item 4): builds the
# code before it (the merge base of this branch with main, or CLAIM_BENCH_BEFORE=<commit>) and this
# tree, each in a private copy, then runs io.shotstash.bench.ClaimOrderBench on each in turn, round
# after round (--rounds, default 3), each run on a fresh database with that code's migrations, and
# writes the "## Pipeline: the claim with 100,000 queued jobs (job priority)" section of
# docs/benchmarks.md. Needs PostgreSQL at 127.0.0.1:5432 with trust auth (or
# SHOTSTASH_TEST_DATABASE_URL), Java 17, Maven, git. About 4 minutes on 2 cores.
# Options go to the benchmark: --jobs=100000 --claims=4000 --warmup=400 --batches=1,16 --out=-
set -euo pipefail

cd "$(dirname "$0")/.."
root="$(pwd)"
command="bench/claim-order.sh${*:+ $*}"
rounds=3
args=()
for a in "$@"; do
  case "$a" in
    --rounds=*) rounds="${a#--rounds=}" ;;
    *) args+=("$a") ;;
  esac
done
before="${CLAIM_BENCH_BEFORE:-$(git merge-base main HEAD)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/shotstash-bench-claim.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tmp" "$work/xdg" "$work/before" "$work/after"
export XDG_CONFIG_HOME="$work/xdg"

# --- the two builds: this tree as it is, and the code before, with this benchmark class added
tar --exclude=./target --exclude='./*/target' --exclude=./.git --exclude=./bench/node/node_modules --exclude=./data \
  -cf - . | tar -xf - -C "$work/after"
git archive "$before" | tar -xf - -C "$work/before"
cp bench/src/test/java/io/shotstash/bench/ClaimOrderBench.java "$work/before/bench/src/test/java/io/shotstash/bench/"
classpath_of() {
  (cd "$1" && mvn -B -ntp -q -DskipTests test-compile dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile=target/classpath.txt) >&2
  echo "$1/bench/target/test-classes:$(cat "$1/bench/target/classpath.txt")"
}
echo "building the code before job priority ($before) and this tree in $work"
before_cp="$(classpath_of "$work/before")"
after_cp="$(classpath_of "$work/after")"
java_version="$(java -version 2>&1 | head -n 3 | paste -sd ';' - | sed 's/;/; /g')"
commit="$(git describe --always --dirty 2>/dev/null || echo '?')"
run() { # $1 label, $2 class path, then options
  local label="$1" cp="$2"
  shift 2
  timeout --kill-after=20 900 java -Xmx1g -Djava.io.tmpdir="$work/tmp" -Dbench.javaVersion="$java_version" \
    -Dbench.commit="$commit" -cp "$cp" io.shotstash.bench.ClaimOrderBench --label="$label" "$@"
}

# --- alternating rounds, so that load from elsewhere falls on both alike
for ((r = 1; r <= rounds; r++)); do
  run before "$before_cp" --round="$r" --json="$work/runs.jsonl" "${args[@]}"
  run after "$after_cp" --round="$r" --json="$work/runs.jsonl" "${args[@]}"
done
out="$root/docs/benchmarks.md"
for a in "${args[@]}"; do
  case "$a" in --out=*) out="${a#--out=}" ;; esac
done
run after "$after_cp" --report="$work/runs.jsonl" --work="$work" --before="${before:0:7}" \
  --command="$command" "${args[@]}" --out="$out"
