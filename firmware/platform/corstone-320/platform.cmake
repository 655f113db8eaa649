# Corstone-320 (SSE-320): Cortex-M85 (built as cortex-m55 by GCC 12), Ethos-U85.
set(EOR_PLATFORM_DEFINES EOR_PLATFORM_CORSTONE_320=1)
