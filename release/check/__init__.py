"""Checks that change nothing: the named checks over a built wheel, and a draft validated as a user
would install it (resolver, interpreters). Above publish: validating reads what publishing wrote."""
