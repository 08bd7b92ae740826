"""Entry point for ``python -m release``."""

import gc
import sys

# jsonschema imports the modules of its format checkers at import where they are installed (its
# format-nongpl extra: cyclonedx-python-lib's validation pulls them in beside this package):
# rfc3987-syntax compiles 38 grammars for "iri" (about 3 s of CPU), isoduration brings arrow and
# dateutil, the rest a module each: 0.15 s in every command that checks a provenance statement. This
# process asks jsonschema for no format (provenance's validator has no format checker), so none of
# them is imported here; jsonschema's own import skips what it cannot import. (idna is not among
# them: requests reads a host name with it.)
FORMAT_CHECKER_MODULES = ("rfc3987_syntax", "rfc3987", "rfc3986_validator", "rfc3339_validator", "fqdn",
                          "webcolors", "jsonpointer", "uri_template", "isoduration")
for _name in FORMAT_CHECKER_MODULES:
    sys.modules.setdefault(_name, None)  # type: ignore[arg-type]

from release.cli import main  # noqa: E402 (after the lines above, which must come first)

status = main()
# The interpreter's last act is a collection of the whole heap before it frees it: for the index's
# season (hundreds of thousands of records, rows and pages) 0.05 s of CPU spent finding cycles in
# memory the process is about to hand back whole. Frozen, that collection skips them (Python
# promises no __del__ at exit; files and locks are closed by ``with`` and finalizers, which still run).
gc.freeze()
sys.exit(status)
