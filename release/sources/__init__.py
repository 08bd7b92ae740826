"""The repositories: upstream pins and how they roll, the git and GitHub edges, this repository's
commits, tags, pushes and pull requests, and the work trees a build reads."""
