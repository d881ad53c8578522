#!/usr/bin/env bash
# What the fence's per-run cache overlay costs (issue 26): wall time of judge-ci on the bundled
# example (examples/jakarta-migration with the migration finished, so that every tier runs:
# structural, a real Maven build with its tests, a command)
# and of 20 one-line `command` checks, each with the caches overlaid (a home folder overlayfs
# can name) and with the caches read-only instead (a home folder whose name holds a comma,
# which overlayfs options cannot spell: the fence falls back, the report says so).
# Usage: bench/fence.sh [RUNS]   (JUDGE_CI_BIN=path to use a built binary; else builds release)
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${JUDGE_CI_BIN:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
  JUDGE_CI_BIN="${CARGO_TARGET_DIR:-$root/target}/release/judge-ci"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/jakarta-migration" "$work/example"
rm -rf "$work/example/workspace/judge-ci-out"
# The finished migration (the reference's files in the workspace), so the build tier runs.
cp -r "$work/example/reference/." "$work/example/workspace/"
mkdir -p "$work/many"
{
  printf 'schema: judge-ci.v1\nname: many\nversion: "1"\njury:\n  checks:\n'
  for i in $(seq 1 20); do printf '    - {type: command, name: c%s, run: "true"}\n' "$i"; done
} > "$work/many/judge-ci.yml"
for h in home 'ho,me'; do mkdir -p "$work/$h/.m2/repository" "$work/$h/.gradle"; done
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
measure() { # label, home, folder
  local label=$1 home=$2 dir=$3 total=0 t fence
  for _ in $(seq 1 "$runs"); do
    t=$(date +%s%N)
    (cd "$dir" && HOME="$home" TMPDIR="$work" "$JUDGE_CI_BIN" --dry-run -q --out "$work/out" >/dev/null 2>&1 || true)
    total=$(( total + $(ms "$t") ))
  done
  fence=$(grep -o '"fence": *"[^"]*"' "$work/out/report.json" | head -1 | grep -o 'cache[^,;"]*' | head -1 || true)
  printf '%-28s %6d ms mean of %d  (%s)\n' "$label" $(( total / runs )) "$runs" "$fence"
}
measure "example, cache overlay" "$work/home" "$work/example/workspace"
measure "example, caches read-only" "$work/ho,me" "$work/example/workspace"
measure "20 commands, cache overlay" "$work/home" "$work/many"
measure "20 commands, read-only" "$work/ho,me" "$work/many"
