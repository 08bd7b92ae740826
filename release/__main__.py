"""Entry point for ``python -m release``."""

import sys

from release.cli import main

sys.exit(main())
