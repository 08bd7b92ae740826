#!/usr/bin/env bash
# Cut a tagged release (or release candidate), or re-spin a published one as .postN.
#
# Usage:
#   scripts/release.sh [flags]          the whole job on this machine, on the release branch:
#                                       build, verify, draft, validate, tag, publish, next version PR
#                                       (e.g. `scripts/release.sh --rc 1`, `scripts/release.sh --post 1`)
#   scripts/release.sh plan [flags]     CI job 1 for a pushed tag: version and kind, create the draft
#   scripts/release.sh finish [flags]   CI last job: validate, publish; after a final release,
#                                       push release/next-X.Y.Z and open the next-version PR
#                                       (--push --open-pr, when GITHUB_REPOSITORY is set)
#   (one wheel of a split build: scripts/build-wheel.sh release|rc pjrt|3.11|...)
# Flags go to `release cut` (see `python -m release cut --help`).
#
# Environment:
#   RELEASE_TAG      the tag to release, rocm-jax-vX.Y.Z[rcN] (CI: the pushed tag)
#   RELEASE_STORE    github | local (default: github when GITHUB_REPOSITORY is set, else local)
#   GITHUB_TOKEN     contents: write (releases, tags, the next-version branch) and
#                    pull-requests: write (the next-version PR)
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
#
# Safe to re-run: a published release is never changed; a draft is completed, not duplicated.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
run_job cut "$@"
