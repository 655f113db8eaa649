# QEMU mps3-an524: Cortex-M33 (SSE-200, CPU 0) in Secure state, Secure aliases.
set(EOR_PLATFORM_DEFINES EOR_PLATFORM_MPS3_AN524=1)
