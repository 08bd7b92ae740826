#!/usr/bin/env bash
# Find the first bad plugin commit between a good and a bad nightly (binary search; each probe
# is an unpublished build + verify + validate in dist/bisect/<sha>/). Re-running resumes.
#
# Usage: scripts/bisect.sh [extra `release bisect` flags, e.g. --probe-command CMD --hold]
#
# Environment:
#   BISECT_GOOD      tag of the last good nightly (required)
#   BISECT_BAD       tag of the red nightly (default: the pins in deps.yaml)
#   GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL   the store the nightlies are in (else local)
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

flags=(--good "${BISECT_GOOD:?set BISECT_GOOD to the tag of the last good nightly}")
if [ -n "${BISECT_BAD:-}" ]; then
  flags+=(--bad "$BISECT_BAD")
fi

python=$(release_python)
exec "$python" -m release bisect "${flags[@]}" "$@"
