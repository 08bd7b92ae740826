#!/usr/bin/env bash
# Find the first bad plugin commit between a good and a bad nightly (binary search; each probe
# is an unpublished build + verify + validate in dist/bisect/<sha>/). Re-running resumes.
#
# Usage:
#   scripts/bisect.sh [flags]        bisect BISECT_GOOD..BISECT_BAD (extra `release bisect` flags,
#                                    e.g. --probe-command CMD --hold)
#   scripts/bisect.sh plan [flags]   after a red nightly: decide what to bisect (the newest
#                                    published nightly .. deps.yaml at BISECT_BAD_COMMIT, nothing
#                                    when a culprit already held or proposed lies between them)
#                                    and start bisect.yml with it (CI: the nightly's bisect job)
#   scripts/bisect.sh hold [flags]   deliver the finished bisect dist/bisect/state.json records:
#                                    the hold branch and its one PR, never a probe (CI: bisect.yml's
#                                    hold job)
#
# Environment:
#   BISECT_GOOD        tag of the last good nightly (required, except for plan)
#   BISECT_BAD         tag of the red nightly (default: the pins in deps.yaml)
#   BISECT_BAD_COMMIT  this repository's commit the red nightly ran from: its deps.yaml are the
#                      bad pins (plan: default HEAD)
#   BISECT_SKIP_KNOWN  true: do nothing when a culprit already held or proposed lies between
#                      good and bad (bisect.yml dispatched by a red nightly)
#   GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL   the store the nightlies are in (else local),
#                      and the hold PRs
#   RELEASE_PYTHON     interpreter that has this project installed (default: .venv/bin/python
#                      when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

python=$(release_python)
mode=${1:-}
if [ "$mode" = plan ]; then
  shift
  flags=(--plan --dispatch bisect.yml --bad-commit "${BISECT_BAD_COMMIT:-HEAD}")
  exec "$python" -m release bisect "${flags[@]}" "$@"
fi

flags=(--good "${BISECT_GOOD:?set BISECT_GOOD to the tag of the last good nightly}")
if [ -n "${BISECT_BAD:-}" ]; then
  flags+=(--bad "$BISECT_BAD")
elif [ -n "${BISECT_BAD_COMMIT:-}" ]; then
  flags+=(--bad-commit "$BISECT_BAD_COMMIT")
fi
if [ "$mode" = hold ]; then
  shift
  flags+=(--recorded-only --open-pr)
elif [ "${BISECT_SKIP_KNOWN:-}" = true ]; then
  flags+=(--skip-known)
fi
exec "$python" -m release bisect "${flags[@]}" "$@"
