# Sourced by the benchmark scripts (run from the repository's top folder, with $work set):
# builds the app's jar and the benchmark in a private copy of the tree, so that other builds in this
# tree (which rewrite target/) cannot change what is measured halfway. Sets $classpath (the
# benchmark's), $jar (the app's fat jar), $java_version and $commit.
echo "building a private copy in $work/src"
mkdir "$work/src"
tar --exclude=./target --exclude='./*/target' --exclude=./.git --exclude=./bench/node/node_modules --exclude=./data \
  -cf - . | tar -xf - -C "$work/src"
# one build for all modules; each module writes its class path to its target/classpath.txt, and the
# benchmarks' (bench/, the last module) holds the app's jars and its test jar
(cd "$work/src" \
  && mvn -B -ntp -q -DskipTests package dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile=target/classpath.txt)
classpath="$work/src/bench/target/test-classes:$(cat "$work/src/bench/target/classpath.txt")"
jar="$work/src/target/shotstash.jar"
java_version="$(java -version 2>&1 | head -n 3 | paste -sd ';' - | sed 's/;/; /g')"
commit="$(git describe --always --dirty 2>/dev/null || echo '?')"
