"""The ExecuTorch runner stage: runtime build, runner ELF, memory areas, run and compare."""
