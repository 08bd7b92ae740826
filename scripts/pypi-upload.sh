#!/usr/bin/env bash
# Upload a published release's validated wheels to PyPI: stage and check them, sign each
# wheel's single-subject SLSA statement with Sigstore (in CI), upload the pjrt wheel first,
# then the plugins. Safe to re-run: what the index holds with the same sha256 is skipped.
#
# Usage:
#   scripts/pypi-upload.sh [flags]        stage, sign, upload; flags go to `release pypi-upload`
#                                         (CI: --no-notes, since that job cannot write the release)
#   scripts/pypi-upload.sh notes [flags]  record in the release notes what the index holds
#
# Environment:
#   RELEASE_TAG            the published release, rocm-jax-vX.Y.Z[.postN]
#   RELEASE_STORE          github | local (default: github when GITHUB_REPOSITORY is set)
#   TWINE_REPOSITORY_URL   the index's upload endpoint (or a [pypi] section in ~/.pypirc)
#   TWINE_USERNAME, TWINE_PASSWORD   an API token; unset in CI: Trusted Publishing (id-token: write)
#   RELEASE_PYPI_FILE_LIMIT          the project's per-file limit on the index (default 100MiB)
#   RELEASE_PYPI_PROJECT_LIMIT       each project's limit on its total (default 10GiB; none, PROJECT=SIZE)
#   RELEASE_PYPI_SIGN      1: sign with `sigstore attest` and `pypi_attestations convert`
#                          (pip install '.[pypi-sign]'; needs an OIDC identity, e.g. CI's)
#   RELEASE_PYPI_WORK      where the wheels are staged and signed (default .cache/pypi/<tag>)
#   RELEASE_PYTHON         interpreter that has this project installed (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
py=${RELEASE_PYTHON:-python3}
tag=${RELEASE_TAG:?set RELEASE_TAG to the published release, rocm-jax-vX.Y.Z[.postN]}
work=${RELEASE_PYPI_WORK:-.cache/pypi/$tag}
store=()
if [ -n "${RELEASE_STORE:-}" ]; then store=(--store "$RELEASE_STORE"); fi
if [ "${1:-}" = notes ]; then
  shift
  exec "$py" -m release pypi-upload "$tag" --notes-only "${store[@]}" "$@"
fi

# 1. the exact validated bytes, the limit, the index's view, the statements to sign
"$py" -m release pypi-upload "$tag" --work "$work" --dry-run "${store[@]}" "$@"
attest=()
if [ "${RELEASE_PYPI_SIGN:-0}" = 1 ]; then
  # 2. one Sigstore-signed statement per wheel (subject: that wheel), as PEP 740 attestations
  # Rekor v1: the log pypi-attestations (0.0.28) signs for and PyPI verifies; sigstore 4 would pick v2
  "$py" -m sigstore attest --overwrite --rekor-version 1 --predicate-type https://slsa.dev/provenance/v1 \
    --predicate "$work/predicate.slsa.json" "$work"/*.whl
  for wheel in "$work"/*.whl; do
    rm -f "$wheel.slsa.attestation"
    "$py" -m pypi_attestations convert "$wheel.sigstore.json" --output-file "$wheel.slsa.attestation"
  done
  attest=(--attestations)
fi
# 3. pjrt first, then the plugins; the notes say what reached the index
"$py" -m release pypi-upload "$tag" --work "$work" "${attest[@]}" "${store[@]}" "$@"
