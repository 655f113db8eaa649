// ExecuTorch platform hooks (PAL) on the eor platform layer: log lines on UART0 in the
// upstream runner's format, ticks from the platform cycle source, abort via semihosting.
#include <cerrno>
#include <cstdio>

#include <executorch/runtime/platform/platform.h>

#include "eor/platform.h"

extern "C" {

void et_pal_init(void) {}

ET_NORETURN void et_pal_abort(void) {
  std::fputs("F [runner] ExecuTorch aborted\n", stdout);
  std::fflush(stdout);
  eor_semihosting_exit(EOR_EXIT_ABORT);
}

et_timestamp_t et_pal_current_ticks(void) { return eor_cycles(); }

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1, 1}; }

void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level,
                             const char* filename, const char* function, size_t line,
                             const char* message, size_t length) {
  (void)timestamp;
  (void)length;
  std::printf("%c [executorch:%s:%lu %s()] %s\n", static_cast<char>(level), filename,
              static_cast<unsigned long>(line), function, message);
}

void* et_pal_allocate(size_t size) {
  (void)size;
  return nullptr;
}

void et_pal_free(void* ptr) { (void)ptr; }

// newlib has no getentropy(); libstdc++'s std::random_device pulls it in. Nothing in the
// runner needs entropy, so a call means a code path we do not support: fail loudly.
int getentropy(void* buffer, size_t length) {
  (void)buffer;
  (void)length;
  std::fputs("F [runner] getentropy() called: no entropy source on this platform\n", stdout);
  std::fflush(stdout);
  eor_semihosting_exit(EOR_EXIT_ABORT);
}

}  // extern "C"
