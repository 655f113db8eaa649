# QEMU mps2-an505: Cortex-M33 (SSE-200) in Secure state, Secure aliases.
set(EOR_PLATFORM_DEFINES EOR_PLATFORM_MPS2_AN505=1)
