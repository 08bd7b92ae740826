"""Where wheels go: stores (GitHub releases or a directory), drafts and publishing, retention and
gc, the pip index and its page."""
