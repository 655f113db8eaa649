"""Configurations of a lowering and the .pte assembled from its template program."""
