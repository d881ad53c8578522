#!/usr/bin/env bash
# The shipped labelled set (examples/calibration, 33 cases, 3 labels each) against the small real
# model the tests use: `judge-ci calibrate` with an empty reply cache, then its markdown report
# (accuracy, Cohen's kappa, TPR/TNR with 95% intervals, instability, requests, tokens, wall time).
# The same command against your own provider: set JUDGE_CI_LLM_PROVIDER, JUDGE_CI_LLM_MODEL,
# JUDGE_CI_LLM_BASE_URL and the key, and run `judge-ci calibrate examples/calibration`.
# Usage: bench/calibrate.sh [calibrate flags, e.g. --jobs 1 --check review]
#   OUT=DIR writes calibrate's output folder there (default: a temporary folder, removed); each
#   case's report lands in DIR/cases/NAME as it finishes, so an interrupted run keeps them.
#   JUDGE_CI_BIN=path/to/judge-ci to use a built binary instead of a release build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/smollm.sh"
export XDG_CACHE_HOME="$work/cache"
mkdir -p "$work/examples/jakarta-migration"
cp -a "$root/examples/calibration" "$work/examples/"
cp -a "$root/examples/jakarta-migration/reference" "$work/examples/jakarta-migration/"
with_limit "$work/examples/calibration/judge-ci.yml"
out="${OUT:-$work/out}"
[[ -n "${OUT:-}" ]] && rm -rf "$OUT"
t0=$(now)
code=0
"$bin" calibrate "$work/examples/calibration" --out "$out" -q "$@" > "$work/calibrate.md" || code=$?
t1=$(now)
cat "$work/calibrate.md"
echo
echo "calibrate: exit $code, wall $(secs "$t0" "$t1") s, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/calibrate.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k = r["overall"].get("kappa")
u = r["usage"]
print("items", r["overall"]["confusion"], "kappa", k and round(k["value"], 3), k and [round(k["low"], 3), round(k["high"], 3)])
print("requests", u["requests"], "tokens in", u["inputTokens"], "out", u["outputTokens"])
PY
