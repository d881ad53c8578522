#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), JOBS at a time (default 2), after
# seeding each corpus with the committed regression inputs of tests/corpus/<target>/.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain it sets
# RUSTC_BOOTSTRAP=1 for the sanitizer flags. The targets are built once and the binaries run
# directly, so editing the sources during a run does not rebuild them. Prints executions and
# crashes per target; crashing inputs stay in fuzz/artifacts/<target>/ (copy them to
# tests/corpus/<target>/, which tests/it/corpus.rs replays).
#   fuzz/run-all.sh [SECONDS] [TARGET...]
# MAX_LEN (default 65536) bounds the inputs: the deep-nesting seeds make every execution
# parse tens of KiB, so a small MAX_LEN trades depth for executions.
set -uo pipefail
secs=${1:-600}
shift || true
jobs=${JOBS:-2}
max_len=${MAX_LEN:-65536}
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
all=(config judgment_json stored_report xml java kotlin markdown)
if (($# > 0)); then targets=("$@"); else targets=("${all[@]}"); fi
triple=$(rustc -vV | sed -n 's/^host: //p')
mkdir -p logs
if ! cargo fuzz build --release >logs/build.log 2>&1; then
  echo "fuzz/run-all.sh: cargo fuzz build failed; see fuzz/logs/build.log" >&2
  exit 2
fi
bin_dir="target/$triple/release"
run() {
  local t=$1
  mkdir -p "corpus/$t" "artifacts/$t"
  if [ -d "../tests/corpus/$t" ]; then cp -n "../tests/corpus/$t"/* "corpus/$t/" 2>/dev/null; fi
  local before
  before=$(find "artifacts/$t" -type f | wc -l)
  "$bin_dir/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" -max_total_time="$secs" \
    -rss_limit_mb=2048 -max_len="$max_len" >"logs/$t.log" 2>&1
  local rc=$?
  local execs
  # libFuzzer ends with "Done N runs in S second(s)"; a crash ends earlier, at "#N".
  execs=$(grep -Eo '^Done [0-9]+ runs' "logs/$t.log" | awk '{print $2}' | tail -1)
  [ -z "$execs" ] && execs=$(grep -Eo '^#[0-9]+' "logs/$t.log" | tail -1 | tr -d '#')
  local after
  after=$(find "artifacts/$t" -type f | wc -l)
  printf '%-15s %12s executions  %s new crash file(s)  exit %s\n' "$t" "${execs:-?}" \
    "$((after - before))" "$rc"
}
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
done
wait
