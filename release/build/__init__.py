"""From pinned sources to wheels: the plan, the Bazel commands, assembling and re-versioning
wheels, and their provenance."""
