#!/usr/bin/env bash
# What `judge-ci prove` costs on the bundled example (examples/jakarta-migration), against the
# issue's targets:
#   (1) one full judge run: the reference judged against itself (every tier, the offline Maven
#       build included)
#   (2) prove's total (--jobs 2): goal at most 10 x (1)
#   (3) each structural-only variant inside prove (the screen's wall time for it, --jobs 1 so
#       runs do not overlap) against a cold structural run (a separate judge-ci process, the migration tier
#       alone, an empty model cache): goal at most 5 % each
#   (4) with valgrind installed, the same ratio in instructions (callgrind), which a busy
#       machine does not change: the cold structural run's total against each screened
#       variant's, from callgrind dumps at each prove::tree::write and remove_dir_all (the
#       interval from writing a variant's tree to removing it once the screen has judged it:
#       writing and judging). Trees are written in this order: the reference, the gold, the
#       base, then one per job (the units, the behaviour break if any, the battery).
# Prints the wall times and the ratios. Model caches live in a temporary folder.
# Usage: bench/prove.sh            (JUDGE_CI_BIN=path/to/judge-ci to use a built binary;
#                                   SKIP_FULL=1 to run (3) and (4) only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -n "${JUDGE_CI_BIN:-}" ]]; then
  bin="$JUDGE_CI_BIN"
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin judge-ci
  bin="${CARGO_TARGET_DIR:-$root/target}/release/judge-ci"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a "$root/examples/jakarta-migration/." "$work/ex/" 2>/dev/null || { mkdir -p "$work/ex"; cp -a "$root/examples/jakarta-migration/." "$work/ex/"; }
rm -rf "$work/ex/workspace/judge-ci-out"
cd "$work/ex/workspace"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# (1) one full judge run of an accepted tree: the reference's copy as the workspace.
cp -a ../reference "$work/gold"
if [[ -z "${SKIP_FULL:-}" ]]; then
t0=$(now)
"$bin" --dry-run -q --config judge-ci.yml --workspace "$work/gold" --reference ../reference \
  --model-cache "$work/cache-full" --out "$work/out-full" --format json > /dev/null || true
t1=$(now)
full=$(secs "$t0" "$t1")
printf '(1) one full judge run (reference, every tier):  %6.2f s   load %s\n' "$full" "$(cut -d' ' -f1 /proc/loadavg)"

# (2) prove, whole.
t0=$(now)
"$bin" prove -q --base ../base --jobs 2 --model-cache "$work/cache-prove" --out "$work/prove" > /dev/null || true
t1=$(now)
total=$(secs "$t0" "$t1")
printf '(2) prove total (--jobs 2):                      %6.2f s   load %s\n' "$total" "$(cut -d' ' -f1 /proc/loadavg)"
awk -v a="$total" -v b="$full" 'BEGIN { printf "    prove / full run: %.1f x (goal <= 10 x)\n", a / b }'
fi

# (3) cold structural run: the migration tier alone, as its own process, empty model cache;
# against it, each variant prove's screen judges (the same migration tier, in prove's process),
# from a prove run of the migration tier plus a final tier that builds nothing (the screen's
# work per variant is the same as under the whole config, without waiting for builds).
python3 - judge-ci.yml "$work/structural.yml" "$work/screened.yml" <<'PY'
import sys
text = open(sys.argv[1]).read()
head, rest = text.split("jury:\n", 1)
tiers = rest.split("    - name: ")
migration = "    - name: " + tiers[1]
open(sys.argv[2], "w").write(head + "jury:\n" + tiers[0] + migration.replace("REJECT_ON_ANY_FAIL", "FINAL_TIER"))
final = "    - name: final\n      policy: FINAL_TIER\n      checks:\n        - type: file-exists\n          path: pom.xml\n"
open(sys.argv[3], "w").write(head + "jury:\n" + tiers[0] + migration + final)
PY
t0=$(now)
"$bin" --dry-run -q --config "$work/structural.yml" --workspace . --reference ../reference \
  --model-cache "$work/cache-cold" --out "$work/out-cold" --format json > /dev/null || true
t1=$(now)
cold=$(secs "$t0" "$t1")
printf '(3) cold structural run (own process, migration tier, empty cache): %6.3f s\n' "$cold"
"$bin" prove -q --config "$work/screened.yml" --base ../base --reference ../reference --jobs 1 \
  --model-cache "$work/cache-seq" --out "$work/prove-seq" > /dev/null || true
python3 - "$work/prove-seq/prove.json" "$cold" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cold = float(sys.argv[2]) * 1000
screened = [u for u in r["units"] if u["judged"].get("screened")]
for u in r["units"]:
    j = u["judged"]
    us = j["elapsedUs"]
    how = "screened" if j.get("screened") else "full run"
    print(f"    unit {u['id']} {u['path']}:{u['line']} ({u['what'][:40]}): {how}, {us / 1000:.2f} ms = {100 * us / 1000 / cold:.2f}% of the cold run (goal <= 5%)")
if screened:
    worst = max(u["judged"]["elapsedUs"] for u in screened) / 1000
    print(f"    worst screened variant: {worst:.2f} ms = {100 * worst / cold:.2f}% of the cold run")
PY

# (4) instructions, where valgrind is installed.
command -v valgrind > /dev/null || { echo "(4) valgrind not installed: no instruction counts"; exit 0; }
rm -rf "$work/cache-cold" "$work/out-cold" "$work/cg"
mkdir -p "$work/cg"
valgrind --tool=callgrind --callgrind-out-file="$work/cg/cold" "$bin" --dry-run -q \
  --config "$work/structural.yml" --workspace . --reference ../reference \
  --model-cache "$work/cache-cold" --out "$work/out-cold" --format json > /dev/null 2> "$work/cg/cold.log" || true
valgrind --tool=callgrind --callgrind-out-file="$work/cg/prove" \
  --dump-before='judge_ci::prove::tree::write' --dump-before='std::sys::fs::remove_dir_all' \
  "$bin" prove -q --config "$work/screened.yml" --base ../base --reference ../reference --jobs 1 \
  --model-cache "$work/cache-cg" --out "$work/prove-cg" > /dev/null 2> "$work/cg/prove.log" || true
python3 - "$work/cg" "$work/prove-cg/prove.json" <<'PY'
import json, os, re, sys
d = sys.argv[1]
def total(path):
    for line in open(path, errors="replace"):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    return 0
def trigger(path):
    for line in open(path, errors="replace"):
        if line.startswith("desc: Trigger:"):
            return line
    return ""
cold = total(os.path.join(d, "cold"))
dumps = sorted((int(f.rsplit(".", 1)[1]), os.path.join(d, f)) for f in os.listdir(d) if re.fullmatch(r"prove\.\d+", f))
# Job k's tree is the (k + 3)-th written; its cost, the dump that starts at that write and ends
# at the next remove_dir_all (its tree removed after a screened judgment).
jobs, seen = [], 0
for i, (_, f) in enumerate(dumps):
    if "before=judge_ci::prove::tree::write" in trigger(f):
        seen += 1
        if seen >= 4 and i + 1 < len(dumps) and "remove_dir_all" in trigger(dumps[i + 1][1]):
            jobs.append(total(dumps[i + 1][1]))
        elif seen >= 4:
            jobs.append(None)
r = json.load(open(sys.argv[2]))
units = r["units"]
print(f"(4) instructions (callgrind): cold structural run {cold:,}")
for k, u in enumerate(units):
    ir = jobs[k] if k < len(jobs) else None
    if ir is None or not u["judged"].get("screened"):
        print(f"    unit {u['id']}: not screened (a full run)")
        continue
    print(f"    unit {u['id']} {u['path']}:{u['line']}: screened, {ir:,} = {100 * ir / cold:.2f}% of the cold run (goal <= 5%)")
# The battery's jobs are not shown: one the screen does not decide gets a full run, which this
# interval would count as its cost.
PY
