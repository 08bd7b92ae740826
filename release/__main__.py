"""Entry point for ``python -m release``."""

import sys

# jsonschema, where its format-nongpl extra is installed (cyclonedx-python-lib's validation pulls it
# in beside this package), imports rfc3987-syntax at import, which compiles 38 grammars for its
# "iri" format checker: about 3 s of CPU in every command that checks a provenance statement. This
# process asks jsonschema for no format (provenance's validator has no format checker), so the
# checker's module is never imported here; jsonschema's own import skips what it cannot import.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

from release.cli import main  # noqa: E402 (after the line above, which must come first)

sys.exit(main())
