#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), two at a time, then replays the
# regression corpus. Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain it
# sets RUSTC_BOOTSTRAP=1 for the sanitizer flags. Prints executions and crashes per target;
# crashing inputs stay in fuzz/artifacts/<target>/ (copy them to tests/corpus/<target>/).
set -uo pipefail
secs=${1:-600}
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
targets=(config judgment_json stored_report xml java markdown)
cargo fuzz build --release "${targets[@]/#/}" >/dev/null 2>&1 || cargo fuzz build --release
mkdir -p logs
run() {
  local t=$1
  mkdir -p "corpus/$t"
  [ -d "../tests/corpus/$t" ] && cp -n ../tests/corpus/$t/* "corpus/$t/" 2>/dev/null
  cargo fuzz run --release "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 \
    > "logs/$t.log" 2>&1
  local rc=$?
  local execs
  # libFuzzer ends with "Done N runs in S second(s)"; a crash ends earlier, at "#N".
  execs=$(grep -Eo '^Done [0-9]+ runs' "logs/$t.log" | awk '{print $2}' | tail -1)
  [ -z "$execs" ] && execs=$(grep -Eo '^#[0-9]+' "logs/$t.log" | tail -1 | tr -d '#')
  local crashes
  crashes=$(ls "artifacts/$t" 2>/dev/null | wc -l)
  printf '%-15s %12s executions  %s crash file(s)  exit %s\n' "$t" "${execs:-?}" "$crashes" "$rc"
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  run "${targets[$i]}" &
  if (( i + 1 < ${#targets[@]} )); then run "${targets[$((i + 1))]}" & fi
  wait
done
