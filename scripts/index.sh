#!/usr/bin/env bash
# The pip indexes (nightly/, stable/) and the page for people of every published wheel, written
# into SITE for a static host (the nightly workflow deploys it to GitHub Pages).
#
# Usage: scripts/index.sh SITE [extra `release index` flags]
#
# Environment:
#   RELEASE_KEEP       nightlies listed (default 14); the nightly's gc reads the same variable,
#                      so the index lists exactly the nightlies gc keeps
#   RELEASE_PROTECT    nightlies always kept and listed: versions or tags, separated by spaces
#   RELEASE_INDEX_URL  where SITE is served, for the install lines on the page (default, for a
#                      github store: the repository's GitHub Pages address)
#   RELEASE_STORE      github | local (default: github when GITHUB_REPOSITORY is set, else local)
#   GITHUB_TOKEN       contents: read on the repository (github store only)
#   RELEASE_PYTHON     interpreter that has this project installed (default: .venv/bin/python
#                      when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

if [ "$#" -lt 1 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
site=$1
shift
retention_flags
flags=("${RETENTION_FLAGS[@]}")
url=${RELEASE_INDEX_URL:-}
if [ -z "$url" ] && [ -n "${GITHUB_REPOSITORY:-}" ] && [ "${RELEASE_STORE:-github}" = github ]; then
  owner=${GITHUB_REPOSITORY%%/*}
  owner=${owner,,}  # Pages' host is the owner in lower case
  repo=${GITHUB_REPOSITORY#*/}
  if [ "${repo,,}" = "$owner.github.io" ]; then url="https://$owner.github.io"; else url="https://$owner.github.io/$repo"; fi
fi
if [ -n "$url" ]; then flags+=(--url "$url"); fi
if [ -n "${RELEASE_STORE:-}" ]; then flags+=(--store "$RELEASE_STORE"); fi
python=$(release_python)
exec "$python" -m release index --out "$site" "${flags[@]}" "$@"
