# Sourced by bench/calibrate.sh and bench/semantic.sh: starts the small real model the tests use
# (SmolLM2-135M, tests/fixtures/smollm/serve.mjs on loopback, prepared by `bash scripts/setup` in
# $JUDGE_CI_SMOLLM_DIR, default ~/.cache/judge-ci/smollm) and points judge-ci at it through the
# environment overrides a user would set for their own provider. Sets $bin (JUDGE_CI_BIN, else a
# release build), $work (a temporary folder, removed on exit) and the JUDGE_CI_LLM_* variables.
smol="${JUDGE_CI_SMOLLM_DIR:-$HOME/.cache/judge-ci/smollm}"
[[ -f "$smol/model.gguf" && -d "$smol/node_modules/node-llama-cpp" ]] || {
  echo "the model is not prepared in $smol: run bash scripts/setup" >&2; exit 2; }
if [[ -n "${JUDGE_CI_BIN:-}" ]]; then
  bin="$JUDGE_CI_BIN"
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin judge-ci
  bin="$root/target/release/judge-ci"
fi
work=$(mktemp -d)
server_pid=""
cleanup() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cp "$root/tests/fixtures/smollm/serve.mjs" "$smol/serve.mjs"
(cd "$smol" && exec node serve.mjs model.gguf "$work/port.json") &
server_pid=$!
for _ in $(seq 1 4500); do [[ -s "$work/port.json" ]] && break; sleep 0.2; done
[[ -s "$work/port.json" ]] || { echo "the model server did not start" >&2; exit 3; }
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$work/port.json")
warmup=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["warmupMs"])' "$work/port.json")
export JUDGE_CI_LLM_PROVIDER=openai JUDGE_CI_LLM_MODEL=smollm2-135m
export JUDGE_CI_LLM_BASE_URL="http://127.0.0.1:$port/v1"
# Each check's time limit from the warm-up answer, as tests/it/real_model.rs derives it (thirty
# times the warm-up, at least a minute), so a busy machine slows the figures instead of turning
# answers into timeouts.
limit_s=$(( warmup * 30 / 1000 )); (( limit_s < 60 )) && limit_s=60
echo "model: SmolLM2-135M on 127.0.0.1:$port (warm-up answer ${warmup} ms, check limit ${limit_s} s); load $(cut -d' ' -f1-3 /proc/loadavg)"
# with_limit CONFIG: gives every check of CONFIG the time limit above.
with_limit() { sed -i "s|^    - type: \(.*\)$|    - type: \1\n      timeout: PT${limit_s}S|" "$1"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
