"""Setup: pinned downloads, safe installs, toolchain/FVP/source providers, the lock file."""
