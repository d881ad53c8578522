#!/usr/bin/env bash
# Installs the judge-ci binary for this runner: from the tool cache when present, else from the
# action's GitHub release (checksum verified), else built with `cargo install --locked` from the
# action's own source. Prints the binary's path as the step output `bin`.
#
# Environment: GITHUB_ACTION_PATH (the action's checkout), RUNNER_OS, RUNNER_ARCH,
# RUNNER_TOOL_CACHE, GITHUB_SERVER_URL, GITHUB_OUTPUT; JUDGE_CI_VERSION (default: the version in
# the action's Cargo.toml), JUDGE_CI_ACTION_REPOSITORY (owner/name of the release),
# JUDGE_CI_RELEASE_URL (overrides the download base, e.g. a mirror for GitHub Enterprise).
set -euo pipefail

fail() { echo "::error title=judge-ci install::$*" >&2; exit 1; }

action_path="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set; run this as part of the judge-ci action}"
version="${JUDGE_CI_VERSION:-}"
if [[ -z "$version" ]]; then
  version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_path/Cargo.toml" | head -n 1)"
fi
version="${version#v}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || fail "version '$version' is not a release version such as 0.1.0"

case "${RUNNER_OS:-Linux}/${RUNNER_ARCH:-X64}" in
  Linux/X64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *) target="" ;;
esac
exe=judge-ci
[[ "${RUNNER_OS:-}" == Windows ]] && exe=judge-ci.exe

cache_root="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/judge-ci/$version/${target:-source}"
bin="$cache_root/bin/$exe"

emit() {
  "$bin" --version >/dev/null || fail "$bin does not run"
  echo "judge-ci $version: $bin"
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    echo "bin=$bin" >> "$GITHUB_OUTPUT"
  fi
  exit 0
}

if [[ -x "$bin" ]]; then
  echo "judge-ci $version found in the tool cache"
  emit
fi

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

if [[ -n "$target" ]]; then
  repo="${JUDGE_CI_ACTION_REPOSITORY:-}"
  base="${JUDGE_CI_RELEASE_URL:-}"
  if [[ -z "$base" && -n "$repo" ]]; then
    base="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download"
  fi
  if [[ -n "$base" ]]; then
    ext=tar.gz
    [[ "$target" == *windows* ]] && ext=zip
    asset="judge-ci-$version-$target.$ext"
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    if curl -fsSL --retry 3 -o "$work/$asset" "$base/v$version/$asset" \
      && curl -fsSL --retry 3 -o "$work/$asset.sha256" "$base/v$version/$asset.sha256"; then
      want="$(cut -d' ' -f1 < "$work/$asset.sha256" | tr -d '[:space:]')"
      got="$(sha256 "$work/$asset")"
      [[ "$want" == "$got" ]] || fail "checksum mismatch for $asset: expected $want, got $got; not installing"
      mkdir -p "$cache_root/bin"
      if [[ "$ext" == zip ]]; then
        unzip -o -q "$work/$asset" -d "$work/x"
      else
        mkdir -p "$work/x" && tar -xzf "$work/$asset" -C "$work/x"
      fi
      found="$(find "$work/x" -type f -name "$exe" | head -n 1)"
      [[ -n "$found" ]] || fail "$asset holds no $exe"
      install -m 0755 "$found" "$bin"
      echo "judge-ci $version downloaded from $base (sha256 $got)"
      emit
    fi
    echo "No release asset $asset at $base/v$version; building from the action's source instead"
  fi
else
  echo "No prebuilt judge-ci for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}; building from the action's source"
fi

command -v cargo >/dev/null || fail "cargo is not installed and no release asset fits this runner; add a Rust toolchain step (e.g. dtolnay/rust-toolchain) before judge-ci"
cargo install --locked --path "$action_path" --root "$cache_root" --bin judge-ci
emit
