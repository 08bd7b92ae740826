#!/usr/bin/env bash
# The ROCm gate between validate and publish: the plugin must register on a ROCm GPU.
#
# Usage:
#   scripts/smoke.sh DIR [flags]          on a ROCm runner: install DIR's wheels with jax and
#                                         jaxlib of their line, list ROCm devices, jit a check;
#                                         writes the verdict to dist/smoke.json (exit 1 when it fails)
#   scripts/smoke.sh TAG [flags]          the same over the draft of TAG; the verdict goes into
#                                         its notes (needs contents: write for the draft)
#   scripts/smoke.sh record TAG [flags]   put dist/smoke.json (made on the ROCm runner) into the
#                                         notes of TAG's draft; exit 1 when it says FAILED
# Flags go to `release smoke` (see `python -m release smoke --help`).
#
# Environment:
#   RELEASE_STORE        github | local (TAG and record only)
#   GITHUB_TOKEN         contents: write on the repository (TAG and record, github store only)
#   RELEASE_PYTHON       interpreter that has this project installed (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
python=$(release_python)
verdict=dist/smoke.json
mkdir -p dist
store=()
if [ -n "${RELEASE_STORE:-}" ]; then store=(--store "$RELEASE_STORE"); fi
if [ "${1:-}" = record ]; then
  shift
  exec "$python" -m release smoke "$@" --record "$verdict" "${store[@]}"
fi
target=${1:?usage: scripts/smoke.sh DIR|TAG [flags] | record TAG [flags]}
shift
status=0
if [ -d "$target" ]; then
  "$python" -m release smoke "$target" --json "$@" >"$verdict" || status=$?
else
  "$python" -m release smoke "$target" --json "${store[@]}" "$@" >"$verdict" || status=$?
fi
cat "$verdict"
exit "$status"
