# Toolchain file for arm-none-eabi-gcc. The orchestrator passes absolute tool paths recorded
# by `invoke setup` (EOR_GCC, EOR_GXX); nothing is looked up on PATH.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EOR_GCC EOR_GXX EOR_CPU)

if(NOT EOR_GCC OR NOT EOR_GXX)
  message(FATAL_ERROR "EOR_GCC and EOR_GXX must name the arm-none-eabi compilers (run: invoke build)")
endif()
set(EOR_CPU "cortex-m55" CACHE STRING "-mcpu value (cortex-m85 is built as cortex-m55 by GCC 12)")

set(CMAKE_C_COMPILER "${EOR_GCC}")
set(CMAKE_CXX_COMPILER "${EOR_GXX}")
set(CMAKE_ASM_COMPILER "${EOR_GCC}")

set(_eor_arch "-mcpu=${EOR_CPU} -mthumb -mfloat-abi=hard")
set(CMAKE_C_FLAGS_INIT "${_eor_arch} -ffunction-sections -fdata-sections -g")
set(CMAKE_CXX_FLAGS_INIT
    "${_eor_arch} -ffunction-sections -fdata-sections -g -fno-exceptions -fno-rtti -fno-unwind-tables")
set(CMAKE_ASM_FLAGS_INIT "${_eor_arch}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_eor_arch} --specs=nano.specs -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
