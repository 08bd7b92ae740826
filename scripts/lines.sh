#!/usr/bin/env bash
# The maintained lines, for the scheduled workflows' matrix (docs/lines.md).
#
# Usage: scripts/lines.sh
#        scripts/lines.sh base --tag TAG [--default BRANCH]
#
# Prints the branches .github/lines.json names, newest line first (without the file: the
# branch checked out), and hands them to the workflow as `lines` (a JSON list) in
# $GITHUB_OUTPUT, which `strategy.matrix.line: ${{ fromJSON(needs.lines.outputs.lines) }}` reads.
# With `base`: the branch a pushed tag's next-version PR goes to (its line's release/X.Y when that
# branch holds the tag, else the default branch), as `base` in $GITHUB_OUTPUT.
#
# Environment:
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

python=$(release_python)
exec "$python" -m release line "${@:-list}"
