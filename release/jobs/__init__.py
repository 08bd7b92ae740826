"""The jobs: resumable steps (pipeline, shared) and each job made of them (nightly, cut, post,
bisect)."""
