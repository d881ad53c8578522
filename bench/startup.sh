#!/usr/bin/env bash
# Wall time of `judge-ci validate` and of a dry run of a one-judge config, on this machine.
# Usage: bench/startup.sh [RUNS]   (builds the release binary first; uses hyperfine if present)
set -euo pipefail
runs=${1:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/judge-ci"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/judge-ci.yml" <<'YAML'
name: startup
jury:
  checks:
    - type: file-exists
      path: judge-ci.yml
YAML
cfg="$root/tests/fixtures/bench/boot3-migration/benchmark.yaml"
cd "$work"
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs "$runs" \
    "$bin validate --config $cfg -q" \
    "$bin --dry-run -q --out $work/out"
  exit 0
fi
measure() { # label, command...
  local label=$1; shift
  local start end
  "$@" >/dev/null 2>&1 || true
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1 || true; done
  end=$(date +%s%N)
  printf '%-40s %8.2f ms per run (%d runs)\n' "$label" "$(awk -v a="$start" -v b="$end" -v n="$runs" 'BEGIN { print (b - a) / n / 1000000 }')" "$runs"
}
measure "validate (3-tier fixture)" "$bin" validate --config "$cfg" -q
measure "dry run, one file-exists judge" "$bin" --dry-run -q --out "$work/out"
