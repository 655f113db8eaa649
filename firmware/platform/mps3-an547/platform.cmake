# QEMU mps3-an547: the Corstone-300 memory map, Cortex-M55, no NPU, no cycle counter.
set(EOR_PLATFORM_DEFINES EOR_PLATFORM_MPS3_AN547=1)
