#!/usr/bin/env bash
# One cell of a split build: fetch the pinned sources, build one wheel, verify it, and upload
# it to the draft release of this version (the draft is shared by all cells; uploads are
# idempotent, so cells may finish in any order and be re-run).
#
# Usage: scripts/build-wheel.sh KIND WHEEL [STAGE]
#   KIND    nightly | rc | release
#   WHEEL   pjrt (built once) | 3.11 | 3.12 | 3.13 | 3.14 (the plugin wheel for that Python)
#   STAGE   (none)  all of it, on one machine
#           build   fetch, build, verify: runs upstream code, needs no credentials
#           check   verify dist/<version> again (the wheel came from another job)
#           upload  publish dist/<version> --partial: runs no upstream code, needs GITHUB_TOKEN
#
# Environment:
#   RELEASE_DATE            UTC date of a nightly, YYYY-MM-DD (default: today, UTC)
#   RELEASE_NUMBER          the N of an rc
#   RELEASE_STORE           github | local (default: github when GITHUB_REPOSITORY is set, else local)
#   GITHUB_TOKEN            contents: write on the repository (upload, github store only)
#   BAZEL_REMOTE_CACHE      optional Bazel remote cache URL (grpcs://... or https://...)
#   BAZEL_REMOTE_HEADER     optional header for it, e.g. "Authorization=Bearer <token>"
#   BAZEL_REMOTE_READ_ONLY  true: read the cache, never upload to it (CI's build cells)
#   RELEASE_PYTHON          interpreter that has this project installed (default: .venv/bin/python
#                           when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

usage() {
  sed -n '2,24p' "$0" >&2
  exit 2
}
if [ "$#" -lt 2 ] || [ "$#" -gt 3 ]; then usage; fi
kind=$1
wheel=$2
stage=${3:-all}
case "$stage" in all | build | check | upload) ;; *) usage ;; esac
py=$(release_python)

version_flags=()
if [ -n "${RELEASE_DATE:-}" ]; then version_flags+=(--date "$RELEASE_DATE"); fi
if [ -n "${RELEASE_NUMBER:-}" ]; then version_flags+=(--number "$RELEASE_NUMBER"); fi
case "$wheel" in
  pjrt) wheel_flags=(--wheel pjrt) ;;
  *) wheel_flags=(--wheel plugin --python "$wheel") ;;
esac
store_flags=()
if [ -n "${RELEASE_STORE:-}" ]; then store_flags+=(--store "$RELEASE_STORE"); fi

version=$("$py" -m release version --kind "$kind" "${version_flags[@]}")
if [ "$stage" = all ] || [ "$stage" = build ]; then
  "$py" -m release fetch-sources --workspace workspace
  "$py" -m release build --kind "$kind" "${version_flags[@]}" "${wheel_flags[@]}" \
    --workspace workspace --dist dist
fi
if [ "$stage" != upload ]; then
  "$py" -m release verify "dist/$version"/*.whl --revisions "dist/$version/revisions.json"
fi
if [ "$stage" = all ] || [ "$stage" = upload ]; then
  if [ -n "${RELEASE_ATTESTATION_BUNDLE:-}" ]; then
    for wheel in "dist/$version"/*.whl; do
      "$py" -m json.tool --compact "$RELEASE_ATTESTATION_BUNDLE" > "$wheel.jsonl"
    done
  fi
  # --partial: add this cell's wheel to the draft; never remove the other cells' assets.
  "$py" -m release publish "dist/$version" --partial "${store_flags[@]}"
fi
