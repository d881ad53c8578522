#!/usr/bin/env bash
# Materialising a 5,000-file tree: `judge-ci checkout REV DIR` (git2, blobs written in
# parallel) against `git worktree add DIR REV` of the same tree. Prints both and the ratio.
# Usage: bench/checkout.sh [RUNS]
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin judge-ci
bin="$root/target/release/judge-ci"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
mkdir -p "$repo"
python3 "$root/bench/gen_java.py" "$repo" 5000
git -C "$repo" -c init.defaultBranch=main init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=b -c user.email=b@example.com -c commit.gpgsign=false commit -qm tree
files=$(git -C "$repo" ls-files | wc -l)
mb=$(du -sm --apparent-size "$repo/src" | cut -f1)
now() { date +%s%N; }
ours=0; theirs=0
for i in $(seq "$runs"); do
  sync; t0=$(now)
  (cd "$repo" && "$bin" checkout HEAD "$work/ours-$i" > /dev/null)
  t1=$(now)
  git -C "$repo" worktree add -q "$work/theirs-$i" HEAD
  t2=$(now)
  ours=$((ours + t1 - t0)); theirs=$((theirs + t2 - t1))
done
awk -v o="$ours" -v t="$theirs" -v n="$runs" -v f="$files" -v mb="$mb" 'BEGIN {
  printf "tree: %d files, %d MB; %d runs each\n", f, mb, n
  printf "judge-ci checkout:  %7.1f ms\n", o / n / 1e6
  printf "git worktree add:   %7.1f ms\n", t / n / 1e6
  printf "ratio judge-ci / git: %.2f\n", o / t
}'
