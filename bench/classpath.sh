# Sourced by bench/cluster.sh and bench/git-writer.sh (run from the repository's top folder, with
# $root and $work set): builds every module up to the Maven phase given ($1: package or test-compile)
# and sets $classpath, the benchmarks' class path (bench/'s test classes, then its test class path,
# which holds the app's and the worker's classes or jars). The tree's own class folders and jars are
# copied into $work/cp first: other builds in this tree may rewrite the modules' target/ while the
# benchmark runs.
mvn -B -ntp -q -DskipTests "$1" dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/classpath.txt
rm -rf "$work/cp" && mkdir -p "$work/cp"
classpath=""
for entry in "$root/bench/target/test-classes" $(tr ':' ' ' <bench/target/classpath.txt); do
  if [[ "$entry" == "$root"/* ]]; then
    copy="$work/cp/$(printf '%s' "${entry#"$root"/}" | tr '/' '_')"
    cp -r "$entry" "$copy" || true
    entry="$copy"
  fi
  classpath+="${classpath:+:}$entry"
done
