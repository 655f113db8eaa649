"""The foundation layer: errors, paths, atomic files, TOML/JSON, progress, pins, host tools,
the command line helpers; imports nothing of the layers above."""
