#!/usr/bin/env bash
# Requests, tokens and wall time of the semantic tier on the bundled example
# (examples/jakarta-migration/workspace, without its config and stored output, judged with the semantic checks of
# examples/calibration/judge-ci.yml: one `llm` verdict and a two-criterion semantic-diff) with
# samples: 1 and samples: 3, each cold (an empty reply cache) and warm (the same run again),
# against the small real model the tests use.
# Usage: bench/semantic.sh    (JUDGE_CI_BIN=path/to/judge-ci to use a built binary)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/smollm.sh"
ex="$root/examples/jakarta-migration"
# The example's workspace as a pull request would have it: its config and stored output left out.
mkdir -p "$work/ws" && cp -a "$ex/workspace/." "$work/ws/" && rm -rf "$work/ws/judge-ci-out" "$work/ws/judge-ci.yml"
printf '%-9s %-5s %8s %10s %9s %11s %12s %8s\n' samples cache requests cache-hits "tokens in" "tokens out" verdict "wall s"
for samples in 1 3; do
  cfg="$work/samples-$samples.yml"
  sed "s|^llm:|llm:\n  samples: $samples|; s|path: ../jakarta-migration/reference|path: $ex/reference|" \
    "$root/examples/calibration/judge-ci.yml" > "$cfg"
  with_limit "$cfg"
  export XDG_CACHE_HOME="$work/cache-$samples"
  for cache in cold warm; do
    out="$work/out-$samples-$cache"
    t0=$(now)
    "$bin" --dry-run -q --config "$cfg" --task "$root/examples/calibration/task.yaml" \
      --workspace "$work/ws" --out "$out" --format json > /dev/null || true
    t1=$(now)
    python3 - "$out/report.json" "$samples" "$cache" "$(secs "$t0" "$t1")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l = r.get("llm") or {}
print(f"{sys.argv[2]:<9} {sys.argv[3]:<5} {l.get('requests', 0):>8} {l.get('cacheHits', 0):>10} {l.get('inputTokens', 0):>9} {l.get('outputTokens', 0):>11} {r['interpretation']['reading'] if 'interpretation' in r else '?':>12} {sys.argv[4]:>8}")
PY
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
