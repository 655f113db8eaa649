# Corstone-300 (SSE-300): Cortex-M55, Ethos-U55/U65 at the catalogue's npu_base.
set(EOR_PLATFORM_DEFINES EOR_PLATFORM_CORSTONE_300=1)
