#!/usr/bin/env bash
# Tonight's nightly prerelease: plan, build, verify, draft, validate, publish, gc.
#
# Usage:
#   scripts/nightly.sh [flags]          the whole job on this machine (needs Bazel and ROCm)
#   scripts/nightly.sh plan [flags]     CI job 1: version and tag; exits early when nothing
#                                       changed since the last nightly; creates the draft
#   scripts/nightly.sh finish [flags]   CI last job: validate the draft, publish it, gc old nightlies
#   (one wheel of a split build: scripts/build-wheel.sh nightly pjrt|3.11|...)
# Flags go to `release nightly` (see `python -m release nightly --help`).
#
# Environment:
#   RELEASE_DATE     UTC date of the nightly, YYYY-MM-DD (default: today, UTC)
#   RELEASE_STORE    github | local (default: github when GITHUB_REPOSITORY is set, else local)
#   GITHUB_TOKEN     contents: write on the repository (github store only)
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
#
# Safe to re-run: finished steps are skipped (dist/<version>/manifest.json) and one nightly
# runs at a time (lock in .cache/locks/nightly.lock).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
run_job nightly "$@"
