"""What a build reads of the plugin's tree (``jobs.plugin_tree``), the one rule the nightly and
bisect share: the plugin's Bazel workspace (``jax_rocm_plugin/``) in the rocm-jax layout, all
of its tree where jax is the plugin's own tree (``{same: plugin}``: the jax-tree layout); the
deps that are a source's own tree are those whose roll is ``{same: <that source>}``, in
deps.yaml's order, and no other."""

from __future__ import annotations

import pytest

from release.core.config import RollHead, RollSame
from release.jobs.plugin_tree import BUILD_TREE, SOURCE, build_tree, same_trees
from tests.test_rolls import dep

PLUGIN, XLA = dep("plugin", RollHead()), dep("xla", RollHead())


def test_the_plugin_is_the_dep_built_and_its_workspace_is_what_a_build_reads():
    assert (SOURCE, BUILD_TREE) == ("plugin", "jax_rocm_plugin/")


@pytest.mark.parametrize("deps, source, same", [
    ([PLUGIN, dep("jax", RollSame("plugin")), XLA], "plugin", ("jax",)),
    ([dep("jax", RollSame("plugin")), PLUGIN, dep("jaxlib", RollSame("plugin"))], "plugin", ("jax", "jaxlib")),
    ([PLUGIN, XLA, dep("tsl", RollSame("xla"))], "plugin", ()),
    ([PLUGIN, XLA, dep("tsl", RollSame("xla"))], "xla", ("tsl",)),
    ([PLUGIN, XLA], "plugin", ()),
    ([], "plugin", ()),
])
def test_a_sources_own_trees_are_the_deps_same_as_it(deps, source, same):
    assert same_trees(deps, source) == same  # type: ignore[arg-type]
    if source == "plugin":
        assert same_trees(deps) == same  # type: ignore[arg-type]


@pytest.mark.parametrize("deps, tree", [
    ([PLUGIN, dep("jax", RollSame("plugin")), XLA], ""),      # the jax-tree layout: all of it
    ([PLUGIN, XLA, dep("tsl", RollSame("xla"))], "jax_rocm_plugin/"),  # another dep's tree is not the plugin's
    ([PLUGIN, XLA], "jax_rocm_plugin/"),
])
def test_a_build_reads_the_plugins_workspace_or_all_of_a_jax_tree(deps, tree):
    assert build_tree(deps) == tree  # type: ignore[arg-type]
