#!/usr/bin/env bash
# Write how the roller is doing into the one dashboard issue (`release dashboard`): opened once,
# then edited only when its body changes; a person's issue is never touched. The last job of
# the bump and nightly workflows.
#
# Usage: scripts/dashboard.sh [extra `release dashboard` flags, e.g. --dry-run --json]
#
# Environment:
#   GITHUB_TOKEN     the workflow's own token (issues: write; actions, pull-requests, contents:
#                    read): both workflows write with it, so the issue's author is always the same
#   GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_RUN_ID   set by GitHub Actions
#   DASHBOARD_THIS_RUN   success|failure|cancelled: how this (nightly) run ends, since GitHub
#                    still shows it in progress while its last job runs (empty: not a nightly)
#   DASHBOARD_BISECT_JOB, DASHBOARD_BISECT   how this nightly's bisect job ended and what its
#                    plan said (started or not, and why): one line under the roller's headline
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

flags=()
if [ -n "${DASHBOARD_THIS_RUN:-}" ]; then flags+=(--this-run "$DASHBOARD_THIS_RUN"); fi
if [ -n "${DASHBOARD_BISECT_JOB:-}" ]; then flags+=(--bisect-job "$DASHBOARD_BISECT_JOB"); fi
if [ -n "${DASHBOARD_BISECT:-}" ]; then flags+=(--bisect-said "$DASHBOARD_BISECT"); fi
python=$(release_python)
exec "$python" -m release dashboard "${flags[@]}" "$@"
