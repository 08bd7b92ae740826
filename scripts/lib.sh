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
  exec "${RELEASE_PYTHON:-python3}" -m release "$command" "${stage[@]}" "${flags[@]}" "$@"
}
