"""ROCm kernels for jaxlib (linalg, prng, solver, sparse, hybrid, rnn, triton).

jaxlib imports the extension modules in this package by name; importing the
package itself loads nothing native.
"""

from .version import __version__  # noqa: F401
