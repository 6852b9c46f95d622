# Sourced first by bench/moderation.sh and bench/pipeline.sh (as "$(dirname "$0")/work.sh", before
# anything else): moves to the repository's top folder and sets $root, $command (how the script was
# called, for the report) and $work, a private temporary folder removed on exit, with tmp/ for the
# JVM and xdg/ as XDG_CONFIG_HOME (JGit would otherwise create ~/.config/jgit).
cd "$(dirname "$0")/.."
root="$(pwd)"
name="$(basename "$0" .sh)"
command="bench/$name.sh${*:+ $*}"
work="$(mktemp -d "${TMPDIR:-/tmp}/shotstash-bench-$name.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tmp" "$work/xdg"
export XDG_CONFIG_HOME="$work/xdg"
