#!/usr/bin/env bash
# Roll the pins in deps.yaml forward and open (or refresh, or close) the one bump pull request.
#
# Usage: scripts/bump.sh [extra `release bump` flags, e.g. --dep xla --to SHA --allow-rewind]
#
# Environment:
#   BUMP_DEPS        space-separated deps to roll (default: all of them)
#   GITHUB_TOKEN     token that may push a branch and open a PR (contents + pull-requests: write)
#   GITHUB_REPOSITORY, GITHUB_API_URL   set by GitHub Actions; set them by hand elsewhere
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
#
# Safe to re-run: an open bump PR is updated in place, never duplicated, and closed when the
# pins turn out current. Without GITHUB_REPOSITORY the bump is only committed on a local
# bump/ branch; run `release bump` yourself to only edit deps.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

dep_flags=()
for dep in ${BUMP_DEPS:-}; do
  dep_flags+=(--dep "$dep")
done

# On GitHub (GITHUB_REPOSITORY set): push the branch and open or refresh the one bump PR.
# Elsewhere: commit deps.yaml on the bump/ branch of this checkout and stop there.
delivery=(--commit)
if [ -n "${GITHUB_REPOSITORY:-}" ]; then delivery+=(--push --open-pr); fi
python=$(release_python)
exec "$python" -m release bump "${dep_flags[@]}" "${delivery[@]}" "$@"
