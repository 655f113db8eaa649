"""Models by name and their loading: the catalogue, the built-in zoo, upstream's examples/models,
content names and input nesting."""
