"""What a build reads of the plugin's tree: one rule for the nightly ("nothing the build reads
moved: no build") and bisect ("a commit changing nothing the build reads is never probed").

If the two disagreed, a nightly could skip a plugin move bisect would probe, or the reverse,
and a culprit would go unseen. Both import it from here: the nightly cannot import bisect,
which runs the catalog's probe job while the catalog declares the nightly's plan steps.
"""

from __future__ import annotations

from release.build.bazel import WORKSPACE_SUBDIR
from release.core.config import Deps, RollSame

# The dep whose tree is built, and what a build of the rocm-jax layout reads of it: its Bazel
# workspace, as ``bazel.WORKSPACE_SUBDIR`` ("<dep>/<tree>") places it. A commit changing nothing
# there (CI, docker, docs: most of rocm-jax's) builds the same wheels as the commit before it.
SOURCE, _, _TREE = WORKSPACE_SUBDIR.partition("/")
BUILD_TREE = f"{_TREE}/"


def same_trees(deps: Deps, source: str = SOURCE) -> tuple[str, ...]:
    """The deps that are ``source``'s own tree (``{same: source}``: jax in the jax-tree layout).
    They move with it by definition, so they are never a move of their own."""
    return tuple(d.name for d in deps if isinstance(d.roll, RollSame) and d.roll.same == source)


def build_tree(deps: Deps) -> str:
    """The prefix of the plugin's paths a build of this line reads: ``BUILD_TREE`` (rocm-jax's
    Bazel workspace), or all of them (``""``) in the jax-tree layout, where the plugin is jax's
    own tree built from its root by jax's own Bazel targets."""
    return "" if same_trees(deps) else BUILD_TREE
