#!/usr/bin/env bash
# Tasks per second of `judge-ci suite` on 200 tiny generated tasks (one file-exists judge and
# one import-diff judge each), with --jobs 1 and --jobs 2.
# Usage: bench/suite.sh [TASKS]   (builds the release binary first)
set -euo pipefail
n=${1:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/judge-ci"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bench"
cat > "$work/bench/benchmark.yaml" <<'YAML'
schema: bench.benchmark.v1
name: tiny
jury:
  tiers:
    - name: files
      policy: REJECT_ON_ANY_FAIL
      checks:
        - {type: file-exists, path: App.java}
    - name: structure
      checks:
        - {type: import-diff, forbid: [javax.servlet.*]}
YAML
for i in $(seq 1 "$n"); do
  d="$work/bench/tasks/t$i"
  mkdir -p "$d/workspace" "$d/reference"
  printf 'schema: bench.task.v1\nid: t%s\ninstruction: Task %s.\n' "$i" "$i" > "$d/task.yaml"
  printf 'import jakarta.servlet.Filter;\nclass App {}\n' > "$d/reference/App.java"
  if [ $((i % 3)) -eq 0 ]; then imp=javax; else imp=jakarta; fi
  printf 'import %s.servlet.Filter;\nclass App {}\n' "$imp" > "$d/workspace/App.java"
done
cd "$work"
for jobs in 1 2; do
  start=$(date +%s%N)
  "$bin" suite bench --jobs "$jobs" --out "out-$jobs" -q
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  awk -v n="$n" -v ms="$ms" -v j="$jobs" 'BEGIN { printf "--jobs %s: %d tasks in %.2f s = %.1f tasks/s\n", j, n, ms/1000, n/(ms/1000) }'
done
