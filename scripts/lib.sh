# shellcheck shell=bash
# Shared by the job scripts (sourced, not run, from the repository root): the interpreter,
# the optional stage word and the flags the RELEASE_* environment sets, then
# `python -m release <command>`.

# release_python: print the interpreter that has this project installed: $RELEASE_PYTHON,
# else the README's .venv when it exists, else python3 (CI installs the project into it).
release_python() {
  if [ -n "${RELEASE_PYTHON:-}" ]; then
    printf '%s\n' "$RELEASE_PYTHON"
  elif [ -x .venv/bin/python ]; then
    printf '%s\n' "$PWD/.venv/bin/python"
  else
    printf '%s\n' python3
  fi
}

# run_job COMMAND [plan|finish] [flags...]: exec `release COMMAND [--stage S] <env flags> flags`.
run_job() {
  local command=$1
  shift
  local stage_flags=()
  case "${1:-}" in
    plan | finish) stage_flags=(--stage "$1"); shift ;;
  esac
  local flags=()
  if [ -n "${RELEASE_DATE:-}" ]; then flags+=(--date "$RELEASE_DATE"); fi
  if [ -n "${RELEASE_TAG:-}" ]; then flags+=(--tag "$RELEASE_TAG"); fi
  if [ -n "${RELEASE_STORE:-}" ]; then flags+=(--store "$RELEASE_STORE"); fi
  if [ "$command" = nightly ]; then
    retention_flags
    flags+=("${RETENTION_FLAGS[@]}")
  fi
  # A final release's finish stage, and a post re-spin, push the next-version branch and open
  # its PR on the repository CI runs for (without them the version move would die with the
  # runner); RELEASE_BRANCH is the PR's base (a post: the line's branch it was dispatched on).
  if [ "$command" = cut ] && [ -n "${GITHUB_REPOSITORY:-}" ] &&
    { [ "${stage_flags[*]}" = "--stage finish" ] || [[ " $* " == *" --post "* ]]; }; then
    flags+=(--push --open-pr)
  fi
  if [ "$command" = cut ] && [ -n "${RELEASE_BRANCH:-}" ]; then
    flags+=(--release-branch "$RELEASE_BRANCH")
  fi
  local python
  python=$(release_python)
  exec "$python" -m release "$command" "${stage_flags[@]}" "${flags[@]}" "$@"
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
