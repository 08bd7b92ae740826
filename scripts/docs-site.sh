#!/usr/bin/env bash
# The docs site (mkdocs.yml, docs/) built strictly, as the tests build it, into SITE/docs: run
# after scripts/index.sh SITE (index swaps the whole SITE in, which would drop docs built before).
#
# Usage: scripts/docs-site.sh SITE
#
# Environment:
#   RELEASE_PYTHON  interpreter that has this project installed (default as scripts/index.sh);
#                   the docs extra (mkdocs, mkdocs-material) is installed into it when missing
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

if [ "$#" -ne 1 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
site=$1
python=$(release_python)
if ! "$python" -c 'import mkdocs, material' 2>/dev/null; then
  "$python" -m pip install --disable-pip-version-check --quiet '.[docs]'
fi
NO_MKDOCS_2_WARNING=1 exec "$python" -m mkdocs build --strict --quiet --site-dir "$site/docs"
