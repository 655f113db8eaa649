"""The apps: what `invoke run` and a regress cell execute, each a typed App (the firmware it
needs, how that is built, how it runs, the result it gives) in one registry (registry.py)."""
