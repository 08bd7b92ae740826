#!/usr/bin/env bash
# Roll the pins in deps.yaml forward and open (or refresh, or close) the one bump pull request.
#
# Usage: scripts/bump.sh [extra `release bump` flags, e.g. --dep xla --to SHA --allow-rewind]
#
# Environment:
#   BUMP_DEPS        space-separated deps to roll (default: all of them)
#   GITHUB_TOKEN     token that may push a branch and open a PR (contents + pull-requests: write)
#   GITHUB_REPOSITORY, GITHUB_API_URL   set by GitHub Actions; set them by hand elsewhere
#   RELEASE_PYTHON   interpreter that has this project installed (default: python3)
#
# Safe to re-run: an open bump PR is updated in place, never duplicated, and closed when the
# pins turn out current. Without GITHUB_TOKEN, run `release bump` yourself to only edit deps.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."

dep_flags=()
for dep in ${BUMP_DEPS:-}; do
  dep_flags+=(--dep "$dep")
done

exec "${RELEASE_PYTHON:-python3}" -m release bump "${dep_flags[@]}" --commit --push --open-pr "$@"
