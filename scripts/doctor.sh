#!/usr/bin/env bash
# What the GitHub repository still needs before the workflows can run there (`release doctor`):
# one line per setting (Actions may create PRs, the Pages source, the bump environment and its
# token, online ROCm runners, the variables the workflows read, tag rulesets, immutable
# releases); it reads settings and changes nothing. Exit 1 when a setting would make a
# workflow fail or hang.
#
# Usage: scripts/doctor.sh [extra `release doctor` flags, e.g. --repo OWNER/NAME --json]
#
# Environment:
#   GITHUB_TOKEN     a token that may read the settings (a maintainer's: Administration,
#                    Variables, Secrets, Pages: read); a workflow's GITHUB_TOKEN reads little of
#                    them, and each line it cannot check says which permission is missing
#   GITHUB_REPOSITORY, GITHUB_API_URL   set by GitHub Actions; set them by hand elsewhere
#   RELEASE_PYTHON   interpreter that has this project installed (default: .venv/bin/python
#                    when the README's venv exists, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

python=$(release_python)
exec "$python" -m release doctor "$@"
