# QEMU mps2-an385: Cortex-M3 (and the Armv6-M cores it runs), CMSDK UART0, no NPU.
set(EOR_PLATFORM_DEFINES EOR_PLATFORM_MPS2_AN385=1)
