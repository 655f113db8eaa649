# How every target is compiled: arm-none-eabi-gcc for Cortex-M (the firmware project and the
# ExecuTorch runtime both use this file). The orchestrator passes (orchestrator/firmware/build/toolchain.py):
#   EOR_GCC, EOR_GXX        absolute compiler paths recorded by `invoke setup` (no PATH lookup)
#   EOR_CPU                 -mcpu value (cortex-m85 is built as cortex-m55 by GCC 12)
#   EOR_FLOAT_ABI           -mfloat-abi value: hard (default) or soft for cores without an FPU
#   EOR_PREFIX_MAPS         OLD=NEW;... -ffile-prefix-map pairs (checkout, scratch, build and
#                           source directories -> fixed names), shortest first: GCC applies
#                           the last matching map, so the most specific one wins. No absolute
#                           path reaches the ELF (__FILE__, debug info), so the same inputs
#                           give the same bytes from any checkout and scratch location.
#   EOR_COMPILER_LAUNCHER   e.g. /usr/bin/ccache (empty: none). ExternalProjects that upstream
#                           builds for the host get it through the environment variables
#                           CMAKE_C_COMPILER_LAUNCHER / CMAKE_CXX_COMPILER_LAUNCHER.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EOR_GCC EOR_GXX EOR_CPU EOR_FLOAT_ABI
     EOR_PREFIX_MAPS EOR_COMPILER_LAUNCHER)

if(NOT EOR_GCC OR NOT EOR_GXX)
  message(FATAL_ERROR "EOR_GCC and EOR_GXX must name the arm-none-eabi compilers (run: invoke build)")
endif()
set(EOR_CPU "cortex-m55" CACHE STRING "-mcpu value (cortex-m85 is built as cortex-m55 by GCC 12)")
set(EOR_FLOAT_ABI "hard" CACHE STRING "-mfloat-abi value (soft on cores without an FPU)")
set(EOR_PREFIX_MAPS "" CACHE STRING "OLD=NEW;... -ffile-prefix-map pairs, shortest first")
set(EOR_COMPILER_LAUNCHER "" CACHE FILEPATH "compiler launcher (ccache) or empty")

set(CMAKE_C_COMPILER "${EOR_GCC}")
set(CMAKE_CXX_COMPILER "${EOR_GXX}")
set(CMAKE_ASM_COMPILER "${EOR_GCC}")
if(EOR_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER "${EOR_COMPILER_LAUNCHER}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${EOR_COMPILER_LAUNCHER}")
endif()

set(_eor_maps "")
foreach(_map IN LISTS EOR_PREFIX_MAPS)
  string(APPEND _eor_maps " -ffile-prefix-map=${_map}")
endforeach()
set(_eor_arch "-mcpu=${EOR_CPU} -mthumb -mfloat-abi=${EOR_FLOAT_ABI}")
set(CMAKE_C_FLAGS_INIT "${_eor_arch} -ffunction-sections -fdata-sections -g${_eor_maps}")
set(CMAKE_CXX_FLAGS_INIT
    "${_eor_arch} -ffunction-sections -fdata-sections -g -fno-exceptions -fno-rtti -fno-unwind-tables${_eor_maps}")
set(CMAKE_ASM_FLAGS_INIT "${_eor_arch}${_eor_maps}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_eor_arch} --specs=nano.specs -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
