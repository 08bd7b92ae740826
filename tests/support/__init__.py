"""Real edges for the tests: git repositories, ELF objects, a GitHub stand-in."""
