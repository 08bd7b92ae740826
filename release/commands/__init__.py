"""One module per ``release`` subcommand (see ``release.cli``)."""
