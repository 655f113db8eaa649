"""Artifacts made elsewhere (a .pte or .bpte from upstream's aot_arm_compiler, the recipe
API, a user's export script): read them without torch, say what they hold and whether the
pinned runtime can run them, run them, and write our own products as .bpte."""
