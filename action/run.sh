#!/usr/bin/env bash
# Runs judge-ci with the action's inputs (composite actions get no INPUT_* variables of their own,
# so action.yml passes each input explicitly). The exit code is judge-ci's: 0 passed, 1 rejected,
# 2 bad input, 3 the instrument failed, 4 publishing fell short with require-publish.
set -uo pipefail

bin="${JUDGE_CI_BIN:-judge-ci}"
# A split run's second job resumes the first job's output folder instead of running the jury.
if [[ -n "${INPUT_RESUME_FROM:-}" ]]; then
  args=(resume --from "$INPUT_RESUME_FROM")
else
  args=(run)
fi
args+=(--out "${INPUT_OUT:-judge-ci-out}" --workspace "${INPUT_WORKSPACE:-.}")
[[ -n "${INPUT_CONFIG:-}" ]] && args+=(--config "$INPUT_CONFIG")
[[ -n "${INPUT_TASK:-}" ]] && args+=(--task "$INPUT_TASK")
[[ -n "${INPUT_REFERENCE:-}" ]] && args+=(--reference "$INPUT_REFERENCE")
[[ -n "${INPUT_COMMENT_MODE:-}" ]] && args+=(--comment-mode "$INPUT_COMMENT_MODE")
[[ "${INPUT_DELETE_ON_PASS:-false}" == true ]] && args+=(--delete-on-pass)
[[ -n "${INPUT_CHECK_RUN:-}" ]] && args+=(--check-run "$INPUT_CHECK_RUN")
[[ -n "${INPUT_CHECK_NAME:-}" ]] && args+=(--check-name "$INPUT_CHECK_NAME")
[[ -n "${INPUT_COMMENT_KEY:-}" ]] && args+=(--comment-key "$INPUT_COMMENT_KEY")
[[ -n "${INPUT_FAIL_ON:-}" ]] && args+=(--fail-on "$INPUT_FAIL_ON")
[[ -n "${INPUT_CONFIG_FROM:-}" ]] && args+=(--config-from "$INPUT_CONFIG_FROM")
[[ "${INPUT_REQUIRE_PUBLISH:-false}" == true ]] && args+=(--require-publish)
if [[ -n "${INPUT_ALLOW_KEY_ENV:-}" ]]; then
  read -r -a allowed <<< "$INPUT_ALLOW_KEY_ENV"
  for name in "${allowed[@]}"; do args+=(--allow-key-env "$name"); done
fi
if [[ -n "${INPUT_ARGS:-}" ]]; then
  read -r -a extra <<< "$INPUT_ARGS"
  args+=("${extra[@]}")
fi
exec "$bin" "${args[@]}"
