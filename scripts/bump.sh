#!/usr/bin/env bash
# Roll the pins in deps.yaml forward and open (or refresh, or close) the one bump pull request.
#
# Usage: scripts/bump.sh [extra `release bump` flags, e.g. --dep xla --to SHA --allow-rewind]
#
# Environment:
#   BUMP_DEPS        space-separated deps to roll (default: all of them)
#   GITHUB_TOKEN     token that may push a branch and open a PR (contents + pull-requests: write)
#   GITHUB_REPOSITORY, GITHUB_API_URL   set by GitHub Actions; set them by hand elsewhere
#   BUMP_AUTO_MERGE  true: merge the bump PR once it is the tool's own and green (--auto-merge;
#                    on GitHub only); repository variable of the same name in bump.yml
#   BUMP_MERGE_METHOD   merge | squash | rebase (--merge-method; default merge)
#   BUMP_MERGE_REQUIRE  the checks that must pass, one name a line (--merge-require each;
#                    default: every check on the PR's head)
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
auto_merge=${BUMP_AUTO_MERGE:-}
if [ -n "${GITHUB_REPOSITORY:-}" ] && [ "${auto_merge,,}" = true ]; then
  delivery+=(--auto-merge)
  if [ -n "${BUMP_MERGE_METHOD:-}" ]; then delivery+=(--merge-method "$BUMP_MERGE_METHOD"); fi
  while read -r check; do
    if [ -n "$check" ]; then delivery+=(--merge-require "$check"); fi
  done <<< "${BUMP_MERGE_REQUIRE:-}"
fi
python=$(release_python)
exec "$python" -m release bump "${dep_flags[@]}" "${delivery[@]}" "$@"
