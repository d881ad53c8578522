#!/usr/bin/env bash
# The structural tier (import-diff + ast-diff + pom-diff) on large trees: what it costs in
# proportion to the change (git-aware file selection, the reference revision read from git
# without being written out) and on a re-run (the parsed-model cache and the digest memory).
#   A generated 10,000-file repository (~50 MB a side, bench/gen_java.py), the reference a
#   revision (`--reference ref`) and the workspace its working tree:
#   (a) 100 files differ, cold model cache
#   (b) every file differs, cold model cache  — next to the time tree-sitter alone needs
#   (c) every file differs, warm re-run (the cache (b) wrote)
#   (b0) every file differs without the model cache (what writing it costs)
#   (e) as (a), after a build tier: the snapshot is taken and the reference written out
#   (a') and (b') the same pairs as two plain folders (no git), for comparison
#   (d) JDK 25 against JDK 17 sources, cold then warm (when both src.zip are on the machine)
# Prints files, MB, wall and CPU seconds and peak RSS per run, then the ratios the goals are
# stated in. Every run uses a model cache in a temporary folder, never the user's.
# Usage: bench/structural.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin judge-ci --example parse-floor
bin="$root/target/release/judge-ci"
floor="$root/target/release/examples/parse-floor"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The structural tier every run judges with; (e) runs it after a build tier (a command that
# does nothing), so that subject code runs first: the workspace is snapshotted and the
# reference written out.
structural_tier='    - name: structural
      voting: {strategy: all-must-pass}
      checks:
        - {type: import-diff, include: ["**/*.java"]}
        - {type: ast-diff, include: ["**/*.java"]}
        - type: pom-diff'
printf 'name: structural-bench\njury:\n  tiers:\n%s\n' "$structural_tier" > "$work/judge-ci.yml"
printf 'name: structural-bench-build-first\njury:\n  tiers:\n%s\n%s\n' \
  '    - name: build
      policy: REJECT_ON_ANY_FAIL
      checks:
        - {type: command, run: "true"}' "$structural_tier" > "$work/build-first.yml"
declare -A wall cpus
measure() { # key label dir reference cache [config]
  local key=$1 label=$2 dir=$3 ref=$4 cache=$5 config=${6:-$work/judge-ci.yml}
  local files mb
  files=$(find "$dir" -name '*.java' -not -path '*/.git/*' | wc -l)
  mb=$(du -sm --apparent-size --exclude=.git "$dir" | cut -f1)
  (cd "$dir" && /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" --dry-run -q \
    --config "$config" --workspace . --reference "$ref" --model-cache "$cache" \
    --format json --out "$work/out" > /dev/null) || true
  read -r w user sys rss < <(tail -n 1 "$work/time")
  local cpu; cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  printf '%-44s %6d files/side %5d MB/side  wall %6.2f s  cpu %6.2f s  peak RSS %5d MB  load %s\n' \
    "$label" "$files" "$mb" "$w" "$cpu" "$((rss / 1024))" "$load"
  wall[$key]=$w
  cpus[$key]=$cpu
}
ratio() { # label numerator denominator goal
  awk -v a="${wall[$2]}" -v b="${wall[$3]}" -v ca="${cpus[$2]}" -v cb="${cpus[$3]}" -v l="$1" -v g="$4" \
    'BEGIN { printf "  %-52s %6.1f%% of wall, %6.1f%% of cpu  (goal %s)\n", l, 100 * a / b, 100 * ca / cb, g }'
}
# No background `git gc --auto` while runs are timed: each repository is packed once, in the
# foreground, as a CI checkout is.
git_in() { git -C "$1" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false -c gc.auto=0 "${@:2}"; }

# The repository: the reference committed and tagged, then the 100-file change committed over
# it (its working tree is the workspace of (a)); the every-file change is a second clone.
python3 "$root/bench/gen_java.py" "$work/ref" 10000
python3 "$root/bench/gen_java.py" "$work/ws100" 10000 --variant 100
python3 "$root/bench/gen_java.py" "$work/wsall" 10000 --variant 1
make_repo() { # dir workspace-tree
  mkdir -p "$1" && git_in "$1" init -q
  cp -r "$work/ref/." "$1/" && git_in "$1" add -A && git_in "$1" commit -qm reference && git_in "$1" tag ref
  git_in "$1" rm -rq . && cp -r "$2/." "$1/" && git_in "$1" add -A && git_in "$1" commit -qm workspace
  git_in "$1" gc -q
}
make_repo "$work/repo100" "$work/ws100"
make_repo "$work/repoall" "$work/wsall"
sleep 1
measure a  "(a) git: 10,000 files, 100 differ (cold)" "$work/repo100" ref "$work/cache-a"
measure b  "(b) git: 10,000 files, all differ (cold)" "$work/repoall" ref "$work/cache-b"
echo "  $("$floor" "$work/wsall" "$work/ref")"
measure c  "(c) git: 10,000 files, all differ (warm)" "$work/repoall" ref "$work/cache-b"
measure b0 "(b0) git: all differ, model cache off" "$work/repoall" ref off
measure e  "(e) git: 100 differ, a build tier first (cold)" "$work/repo100" ref "$work/cache-e" "$work/build-first.yml"
measure a2 "(a') folders: 100 differ (cold)" "$work/ws100" "$work/ref" "$work/cache-a2"
measure b2 "(b') folders: all differ (cold)" "$work/wsall" "$work/ref" "$work/cache-b2"
measure c2 "(c') folders: all differ (warm)" "$work/wsall" "$work/ref" "$work/cache-b2"
(cd "$work/repo100" && /usr/bin/time -f "%e" -o "$work/time" "$bin" checkout ref "$work/co" > /dev/null)
wall[co]=$(tail -n 1 "$work/time")
printf '  not paid by (a): writing the reference revision into a folder (judge-ci checkout) takes %.2f s\n' "${wall[co]}"
ratio "(a) 100 differ / (b) all differ, cold" a b "<= 2%"
ratio "(c) warm re-run / (b) cold" c b "<= 15%"
ratio "(b) cold, writing the cache / (b0) no cache" b b0 "the cost of writing it"
ratio "(e) build tier first, 100 differ / (b)" e b "none; snapshot and reference written out"
ratio "(a') folders 100 differ / (b') all differ" a2 b2 "none; git-less path"
ratio "(c') folders warm / (b') cold" c2 b2 "none; git-less path"

jdk17=/usr/lib/jvm/openjdk-17/lib/src.zip
jdk25=/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip
if [ -f "$jdk17" ] && [ -f "$jdk25" ]; then
  mkdir -p "$work/jdk17" "$work/jdk25"
  (cd "$work/jdk17" && unzip -q "$jdk17")
  (cd "$work/jdk25" && unzip -q "$jdk25")
  measure d  "(d) JDK 25 against JDK 17 (cold)" "$work/jdk25" "$work/jdk17" "$work/cache-d"
  echo "  $("$floor" "$work/jdk25" "$work/jdk17")"
  measure d2 "(d) JDK 25 against JDK 17 (warm)" "$work/jdk25" "$work/jdk17" "$work/cache-d"
  ratio "(d) warm / cold" d2 d "warm <= 1.5 s, peak RSS < 300 MB"
else
  echo "(d) skipped: $jdk17 or $jdk25 is missing (apt-get install openjdk-17-source; JDK 25 from a Temurin package)"
fi
