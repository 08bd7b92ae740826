# shellcheck shell=bash
# Shared by the job scripts (sourced, not run): the optional stage word and the flags the
# RELEASE_* environment sets, then `python -m release <command>`.

# run_job COMMAND [plan|finish] [flags...]: exec `release COMMAND [--stage S] <env flags> flags`.
run_job() {
  local command=$1
  shift
  local stage=()
  case "${1:-}" in
    plan | finish) stage=(--stage "$1"); shift ;;
  esac
  local flags=()
  if [ -n "${RELEASE_DATE:-}" ]; then flags+=(--date "$RELEASE_DATE"); fi
  if [ -n "${RELEASE_TAG:-}" ]; then flags+=(--tag "$RELEASE_TAG"); fi
  if [ -n "${RELEASE_STORE:-}" ]; then flags+=(--store "$RELEASE_STORE"); fi
  if [ "$command" = nightly ]; then
    retention_flags
    flags+=("${RETENTION_FLAGS[@]}")
  fi
  exec "${RELEASE_PYTHON:-python3}" -m release "$command" "${stage[@]}" "${flags[@]}" "$@"
}

# retention_flags: set RETENTION_FLAGS to the one retention rule's flags (the nightly's gc and
# `release index` take the same) from RELEASE_KEEP and RELEASE_PROTECT (versions or tags,
# separated by spaces).
retention_flags() {
  RETENTION_FLAGS=()
  if [ -n "${RELEASE_KEEP:-}" ]; then RETENTION_FLAGS+=(--keep "$RELEASE_KEEP"); fi
  local protect=()
  read -r -a protect <<<"${RELEASE_PROTECT:-}"
  if [ "${#protect[@]}" -gt 0 ]; then RETENTION_FLAGS+=(--protect "${protect[@]}"); fi
}
