"""Simulators: the run plan (where a target runs, with which NPU executor, how), the simulator
interface with one implementation per kind (qemu, fvp), one process abstraction, sessions."""
