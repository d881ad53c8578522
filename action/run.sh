#!/usr/bin/env bash
# Runs judge-ci with the action's inputs (composite actions get no INPUT_* variables of their own,
# so action.yml passes each input explicitly). The `command` input chooses the subcommand:
#
#   run (default)  judge the pull request: every input below applies
#   publish        post a stored report (`publish --from FROM`): config, from and the publishing
#                  inputs (github-token, comment-mode, delete-on-pass, check-run, check-name,
#                  comment-key, require-publish)
#   suite          judge every task of a layout; args names the folder (`args: bench --shard 1/4`)
#   merge          combine shard folders; args names them
#   compare        compare suite reports; args holds `--baseline OLD CURRENT` and the gate's flags
#   prove          prove the config (`judge-ci prove`): config, reference, and args holding
#                  `--base REV` (and `--jobs N`); exit 1 for a blind spot or accepted gaming
#   calibrate      agreement of the semantic checks with a labelled set (`judge-ci calibrate`):
#                  args holds CASES_DIR and its flags (`examples/calibration --min-kappa 0.4`);
#                  exit 1 when kappa's lower bound is below --min-kappa
#
# `out` is the folder the command writes (--out), `args` more arguments for the command, split on
# whitespace. An input set to something other than its default that the chosen command does not
# take is refused (exit 2) rather than ignored. The exit code is judge-ci's: 0 passed, 1
# rejected (or, for compare, regressed), 2 bad input, 3 the instrument failed, 4 publishing fell
# short with require-publish.
set -uo pipefail

bin="${JUDGE_CI_BIN:-judge-ci}"
command="${INPUT_COMMAND:-run}"

refuse() { echo "::error title=judge-ci::$*" >&2; exit 2; }

# Each input other than out and args, with its default, and the commands that take it.
declare -A default=(
  [config]="" [task]="" [reference]="" [workspace]="." [comment-mode]="" [delete-on-pass]=false
  [check-run]="" [check-name]="" [comment-key]="" [fail-on]="" [config-from]=""
  [require-publish]=false [allow-key-env]="" [resume-from]="" [from]=""
)
declare -A value=(
  [config]="${INPUT_CONFIG:-}" [task]="${INPUT_TASK:-}" [reference]="${INPUT_REFERENCE:-}"
  [workspace]="${INPUT_WORKSPACE:-.}" [comment-mode]="${INPUT_COMMENT_MODE:-}"
  [delete-on-pass]="${INPUT_DELETE_ON_PASS:-false}" [check-run]="${INPUT_CHECK_RUN:-}"
  [check-name]="${INPUT_CHECK_NAME:-}" [comment-key]="${INPUT_COMMENT_KEY:-}"
  [fail-on]="${INPUT_FAIL_ON:-}" [config-from]="${INPUT_CONFIG_FROM:-}"
  [require-publish]="${INPUT_REQUIRE_PUBLISH:-false}" [allow-key-env]="${INPUT_ALLOW_KEY_ENV:-}"
  [resume-from]="${INPUT_RESUME_FROM:-}" [from]="${INPUT_FROM:-}"
)
publishing="comment-mode delete-on-pass check-run check-name comment-key require-publish"
case "$command" in
  run) takes="config task reference workspace fail-on config-from allow-key-env resume-from $publishing" ;;
  publish) takes="config from $publishing" ;;
  suite | merge | compare | calibrate) takes="" ;;
  prove) takes="config reference" ;;
  *) refuse "command '$command' is not one of run, publish, suite, merge, compare, prove, calibrate" ;;
esac
for name in "${!default[@]}"; do
  if [[ "${value[$name]}" != "${default[$name]}" && " $takes " != *" $name "* ]]; then
    refuse "input '$name' does not apply to command '$command'; it takes: ${takes:-out and args only}"
  fi
done

# The common publishing flags of run and publish.
publish_flags() {
  [[ -n "${value[comment-mode]}" ]] && args+=(--comment-mode "${value[comment-mode]}")
  [[ "${value[delete-on-pass]}" == true ]] && args+=(--delete-on-pass)
  [[ -n "${value[check-run]}" ]] && args+=(--check-run "${value[check-run]}")
  [[ -n "${value[check-name]}" ]] && args+=(--check-name "${value[check-name]}")
  [[ -n "${value[comment-key]}" ]] && args+=(--comment-key "${value[comment-key]}")
  [[ "${value[require-publish]}" == true ]] && args+=(--require-publish)
  return 0
}

out="${INPUT_OUT:-judge-ci-out}"
case "$command" in
  run)
    # A split run's second job resumes the first job's output folder instead of running the jury.
    if [[ -n "${value[resume-from]}" ]]; then
      args=(resume --from "${value[resume-from]}")
    else
      args=(run)
    fi
    args+=(--out "$out" --workspace "${value[workspace]}")
    [[ -n "${value[config]}" ]] && args+=(--config "${value[config]}")
    [[ -n "${value[task]}" ]] && args+=(--task "${value[task]}")
    [[ -n "${value[reference]}" ]] && args+=(--reference "${value[reference]}")
    [[ -n "${value[fail-on]}" ]] && args+=(--fail-on "${value[fail-on]}")
    [[ -n "${value[config-from]}" ]] && args+=(--config-from "${value[config-from]}")
    publish_flags
    if [[ -n "${value[allow-key-env]}" ]]; then
      read -r -a allowed <<< "${value[allow-key-env]}"
      for name in "${allowed[@]}"; do args+=(--allow-key-env "$name"); done
    fi
    ;;
  publish)
    # The folder a run wrote (downloaded from its artifact): `from`, else the out folder.
    args=(publish --from "${value[from]:-$out}")
    [[ -n "${value[config]}" ]] && args+=(--config "${value[config]}")
    publish_flags
    ;;
  suite | merge | compare | calibrate)
    args=("$command" --out "$out")
    ;;
  prove)
    args=(prove --out "$out")
    [[ -n "${value[config]}" ]] && args+=(--config "${value[config]}")
    [[ -n "${value[reference]}" ]] && args+=(--reference "${value[reference]}")
    ;;
esac
if [[ -n "${INPUT_ARGS:-}" ]]; then
  read -r -a extra <<< "$INPUT_ARGS"
  args+=("${extra[@]}")
fi
exec "$bin" "${args[@]}"
