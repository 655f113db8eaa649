"""A regression's plan: the matrix file, its cells, their option sets,
the selection and the lowering plan."""
