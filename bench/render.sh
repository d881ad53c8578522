#!/usr/bin/env bash
# Rendering every surface of a report with thousands of findings: a structural run over 2,600
# generated files that all differ (about 6,000 findings), then `judge-ci render --out` timed.
# Usage: bench/render.sh [RUNS]
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin judge-ci
bin="$root/target/release/judge-ci"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/bench/gen_java.py" "$work/ref" 2600
python3 "$root/bench/gen_java.py" "$work/ws" 2600 --variant 1
printf 'name: render-bench\njury:\n  checks:\n    - type: import-diff\n    - type: ast-diff\n    - type: file-comparison\n' > "$work/judge-ci.yml"
"$bin" --dry-run -q --config "$work/judge-ci.yml" --workspace "$work/ws" --reference "$work/ref" --out "$work/run" > /dev/null || true
findings=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['diffs']; print(sum(len(v) for v in d.values()))" "$work/run/report.json")
start=$(date +%s%N)
for i in $(seq "$runs"); do "$bin" render "$work/run/report.json" --out "$work/surfaces-$i" > /dev/null; done
end=$(date +%s%N)
awk -v a="$start" -v b="$end" -v n="$runs" -v f="$findings" 'BEGIN { printf "report with %d findings: every surface rendered in %.1f ms (mean of %d runs, process start included)\n", f, (b - a) / n / 1e6, n }'
ls -l "$work/surfaces-1" | awk 'NR > 1 { printf "  %-16s %9d bytes\n", $9, $5 }'
