"""Exact references: what the compiled program computes, bit for bit, on the host.

ops.py says which lowered ops have an exact host implementation (no torch); kernels.py holds
the ones this project models after the device kernels (CMSIS-NN and ExecuTorch's Cortex-M
kernels); interpreter.py runs the lowered program with them and the TOSA reference model for
delegated partitions; reference.py stores the result in the product at compile time. A device
run is judged against it by orchestrator.comparison.
"""
