"""Toolsets: named, pinned Python AOT stacks, each compiling in its own environment."""
