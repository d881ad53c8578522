#!/usr/bin/env bash
# The structural tier (import-diff + ast-diff + pom-diff) on large trees, against the time
# tree-sitter alone needs to parse the same bytes on all cores.
#   (a) 10,000 Java files (~50 MB a side), 100 of them different
#   (b) the same with every file different
#   (c) JDK 17 sources against JDK 25 sources (when both src.zip are on the machine)
# Prints files, MB, wall and CPU seconds and peak RSS per run. Usage: bench/structural.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin judge-ci --example parse-floor
bin="$root/target/release/judge-ci"
floor="$root/target/release/examples/parse-floor"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/judge-ci.yml" <<'YAML'
name: structural-bench
jury:
  tiers:
    - name: structural
      voting: {strategy: all-must-pass}
      checks:
        - {type: import-diff, include: ["**/*.java"]}
        - {type: ast-diff, include: ["**/*.java"]}
        - type: pom-diff
YAML
measure() { # label ws ref
  local label=$1 ws=$2 ref=$3
  local files mb
  files=$(find "$ws" -name '*.java' | wc -l)
  mb=$(du -sm --apparent-size "$ws" | cut -f1)
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" --dry-run -q --config "$work/judge-ci.yml" \
    --workspace "$ws" --reference "$ref" --format json --out "$work/out" > /dev/null || true
  read -r wall user sys rss < <(tail -n 1 "$work/time")
  local cpu; cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  printf '%-34s %6d files/side %5d MB/side  wall %6.2f s  cpu %6.2f s  peak RSS %5d MB\n' \
    "$label" "$files" "$mb" "$wall" "$cpu" "$((rss / 1024))"
  echo "$wall" > "$work/last_wall"
}
floor_of() { # ws ref → prints the floor line and stores its seconds
  local line; line=$("$floor" "$1" "$2")
  echo "  $line"
  echo "$line" | sed -E 's/.* ([0-9.]+) s wall.*/\1/' > "$work/last_floor"
}
ratio() { awk -v a="$(cat "$work/last_wall")" -v b="$(cat "$work/last_floor")" 'BEGIN { printf "  ratio to the parse floor: %.2fx\n", a / b }'; }

python3 "$root/bench/gen_java.py" "$work/ref" 10000
python3 "$root/bench/gen_java.py" "$work/ws100" 10000 --variant 100
python3 "$root/bench/gen_java.py" "$work/wsall" 10000 --variant 1
measure "(a) 10,000 files, 100 differ" "$work/ws100" "$work/ref"
measure "(b) 10,000 files, all differ" "$work/wsall" "$work/ref"
floor_of "$work/wsall" "$work/ref"
ratio
jdk17=/usr/lib/jvm/openjdk-17/lib/src.zip
jdk25=/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip
if [ -f "$jdk17" ] && [ -f "$jdk25" ]; then
  mkdir -p "$work/jdk17" "$work/jdk25"
  (cd "$work/jdk17" && unzip -q "$jdk17")
  (cd "$work/jdk25" && unzip -q "$jdk25")
  measure "(c) JDK 25 against JDK 17" "$work/jdk25" "$work/jdk17"
  floor_of "$work/jdk25" "$work/jdk17"
  ratio
else
  echo "(c) skipped: $jdk17 or $jdk25 is missing (apt-get install openjdk-17-source)"
fi
