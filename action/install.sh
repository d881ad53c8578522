#!/usr/bin/env bash
# Installs the judge-ci binary for this runner: from the tool cache when present, else from the
# action's GitHub release, else built with `cargo install --locked` from the action's own source.
# Prints the binary's path as the step output `bin`, and `built=true` when it compiled it.
#
# `install.sh key` prints, instead, what the action's cache steps need: `source-build` (true when
# no release checksum is committed at this ref, so the binary is built from source), `path` (the
# folder the built binary goes to) and `key`: the OS, the architecture, the version and the
# SHA-256 of the action's source tree (every file but target/ and .git/), so a binary is only
# ever restored for exactly the source it was built from.
#
# Verification: action/checksums.txt, committed in this repository at the action's ref (the
# release workflow writes it into the release commit it tags), lists the SHA-256 of every release
# asset and of the binary inside it. A downloaded archive and the binary extracted from it must
# match it, and so must a binary found in the tool cache (one that does not is never run; a
# verified copy replaces it). Nothing downloaded from the release itself (such as a .sha256 file)
# is trusted: whoever can replace an asset can replace that too. A ref without a committed
# checksum for this version and platform (a branch, not a release tag) builds from its own source.
#
# Environment: GITHUB_ACTION_PATH (the action's checkout), RUNNER_OS, RUNNER_ARCH,
# RUNNER_TOOL_CACHE, GITHUB_SERVER_URL, GITHUB_OUTPUT; JUDGE_CI_VERSION (default: the version in
# the action's Cargo.toml), JUDGE_CI_ACTION_REPOSITORY (owner/name of the release),
# JUDGE_CI_RELEASE_URL (overrides the download base, e.g. a mirror for GitHub Enterprise).
set -euo pipefail

fail() { echo "::error title=judge-ci install::$*" >&2; exit 1; }

action_path="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set; run this as part of the judge-ci action}"
source_version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_path/Cargo.toml" | head -n 1)"
version="${JUDGE_CI_VERSION:-}"
if [[ -z "$version" ]]; then
  version="$source_version"
fi
version="${version#v}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || fail "version '$version' is not a release version such as 0.1.0"

# judge-ci runs on Linux only: the fence around the pull request's processes is built from Linux
# namespaces, prctl and Landlock, and there is no build for other systems.
case "${RUNNER_OS:-Linux}/${RUNNER_ARCH:-X64}" in
  Linux/X64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ;;
  Linux/*) target="" ;;
  *) fail "judge-ci runs on Linux runners only (x86_64 or aarch64; this one is ${RUNNER_OS}/${RUNNER_ARCH:-?}): its fence around the pull request's code needs Linux namespaces and Landlock. Use runs-on: ubuntu-24.04 (or ubuntu-24.04-arm)" ;;
esac
exe=judge-ci

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# The SHA-256 committed for a file name in action/checksums.txt (sha256sum's format), or nothing.
checksums="$action_path/action/checksums.txt"
committed() {
  [[ -f "$checksums" ]] || return 0
  awk -v name="$1" '$1 !~ /^#/ && NF == 2 && ($2 == name || $2 == "*" name) { print tolower($1); exit }' "$checksums"
}

ext=tar.gz
asset="judge-ci-$version-$target.$ext"
want_asset=""
want_bin=""
if [[ -n "$target" ]]; then
  want_asset="$(committed "$asset")"
  want_bin="$(committed "judge-ci-$version-$target/$exe")"
fi

tool_root="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/judge-ci/$version"
# Verified release binaries and binaries built from source are kept apart.
source_root="$tool_root/source-${target:-unknown}"
if [[ -n "$want_bin" ]]; then
  cache_root="$tool_root/$target"
else
  cache_root="$source_root"
fi
bin="$cache_root/bin/$exe"

if [[ "${1:-}" == key ]]; then
  digest="$(cd "$action_path" &&
    find . \( -path ./target -o -path ./.git \) -prune -o -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-32)"
  key="judge-ci-source-build-v1-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$version-$digest"
  echo "cache key $key ($source_root)"
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    {
      echo "source-build=$([[ -z "$want_bin" ]] && echo true || echo false)"
      echo "path=$source_root"
      echo "key=$key"
    } >> "$GITHUB_OUTPUT"
  fi
  exit 0
fi

emit() {
  "$bin" --version >/dev/null || fail "$bin does not run"
  echo "judge-ci $version: $bin"
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    echo "bin=$bin" >> "$GITHUB_OUTPUT"
  fi
  exit 0
}

if [[ -x "$bin" ]]; then
  if [[ -z "$want_bin" ]]; then
    echo "judge-ci $version found in the tool cache (built from this action's source; no release checksum is committed at this ref)"
    emit
  fi
  got="$(sha256 "$bin")"
  if [[ "$got" == "$want_bin" ]]; then
    echo "judge-ci $version found in the tool cache (sha256 $got matches action/checksums.txt)"
    emit
  fi
  echo "::warning title=judge-ci install::$bin in the tool cache has sha256 $got, not the $want_bin committed in action/checksums.txt; not running it, installing a verified copy instead"
  rm -f "$bin"
fi

if [[ -n "$target" ]]; then
  repo="${JUDGE_CI_ACTION_REPOSITORY:-}"
  base="${JUDGE_CI_RELEASE_URL:-}"
  if [[ -z "$base" && -n "$repo" ]]; then
    base="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download"
  fi
  if [[ -z "$want_asset" || -z "$want_bin" ]]; then
    if [[ -n "${JUDGE_CI_VERSION:-}" && "$version" != "$source_version" ]]; then
      fail "action/checksums.txt at this action's ref holds no SHA-256 for $asset, so version $version cannot be verified; use the action at that version's tag (uses: <owner>/judge-ci@v$version) instead of the version input"
    fi
    echo "No SHA-256 for $asset is committed in action/checksums.txt at this ref (not a release commit); building from the action's source instead"
  elif [[ -n "$base" ]]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    if curl -fsSL --retry 3 -o "$work/$asset" "$base/v$version/$asset"; then
      got="$(sha256 "$work/$asset")"
      [[ "$got" == "$want_asset" ]] || fail "checksum mismatch for $asset: action/checksums.txt says $want_asset, the download is $got; not installing"
      mkdir -p "$work/x" && tar -xzf "$work/$asset" -C "$work/x"
      found="$(find "$work/x" -type f -name "$exe" | head -n 1)"
      [[ -n "$found" ]] || fail "$asset holds no $exe"
      got_bin="$(sha256 "$found")"
      [[ "$got_bin" == "$want_bin" ]] || fail "checksum mismatch for $exe in $asset: action/checksums.txt says $want_bin, the file is $got_bin; not installing"
      mkdir -p "$cache_root/bin"
      install -m 0755 "$found" "$bin"
      [[ "$(sha256 "$bin")" == "$want_bin" ]] || fail "$bin changed while it was installed; not running it"
      echo "judge-ci $version downloaded from $base (sha256 $got, binary $got_bin, both as committed in action/checksums.txt)"
      emit
    fi
    echo "No release asset $asset at $base/v$version; building from the action's source instead"
  fi
else
  echo "No prebuilt judge-ci for Linux/${RUNNER_ARCH:-?} (x86_64 and aarch64 only); building from the action's source"
fi

cache_root="$source_root"
bin="$cache_root/bin/$exe"
command -v cargo >/dev/null || fail "cargo is not installed and no release asset fits this runner; add a Rust toolchain step (e.g. dtolnay/rust-toolchain) before judge-ci"
cargo install --locked --path "$action_path" --root "$cache_root" --bin judge-ci
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  echo "built=true" >> "$GITHUB_OUTPUT"
fi
emit
