/* selftest: report the platform checks, a timed kernel, every dtype and memory use. */
#include <stdio.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "selftest.h"

#define SELFTEST_AREA_HEAD 256 /* bytes of each fixed area the selftest checksums */

#if EOR_SELFTEST_BLOAT > 0
/* Deliberately oversized (overflow tests): lands in the DATA region's .bss. */
volatile unsigned char selftest_bloat[EOR_SELFTEST_BLOAT];
#endif

static void report_memory(void) {
  size_t model_size, input_size;
  const void *model = eor_model_area(&model_size);
  const void *input = eor_input_area(&input_size);
  eor_record_t record;
  eor_record_start(&record, "layout");
  eor_record_hex32(&record, "model_area", (uint32_t)(uintptr_t)model);
  eor_record_u64(&record, "model_size", model_size);
  eor_record_hex32(&record, "input_area", (uint32_t)(uintptr_t)input);
  eor_record_u64(&record, "input_size", input_size);
  eor_record_emit(&record);
  /* What the simulator loaded into the fixed areas (data-loading check for the host). */
  eor_protocol_metric("model_area_head_crc32", eor_crc32(0, model, SELFTEST_AREA_HEAD), "crc32",
                      "model_area");
  eor_protocol_metric("input_area_head_crc32", eor_crc32(0, input, SELFTEST_AREA_HEAD), "crc32",
                      "input_area");
  eor_protocol_metric("heap_used", eor_heap_used(), "bytes", "sbrk");
  eor_protocol_metric("heap_size", eor_heap_size(), "bytes", "linker");
  eor_protocol_metric("stack_used", eor_stack_used(), "bytes", "paint");
  eor_protocol_metric("stack_size", eor_stack_size(), "bytes", "linker");
}

#if defined(EOR_SELFTEST_FAULT)
static void provoke_fault(void) {
  printf("selftest: provoking a fault\n");
  volatile uint32_t *nowhere = (volatile uint32_t *)0x0C000000u; /* unmapped */
  (void)*nowhere;
  __asm volatile("udf #0"); /* if the read did not fault: undefined instruction */
}
#endif

#if defined(EOR_SELFTEST_STACK)
/* Unbounded recursion: MSPLIM turns the overflow into a UsageFault (STKOF). */
static unsigned recurse(unsigned depth) {
  volatile unsigned char frame[256];
  frame[0] = (unsigned char)depth;
  return recurse(depth + 1) + frame[0];
}
#endif

#if defined(EOR_SELFTEST_HANG)
static void hang(void) {
  printf("selftest: hanging on purpose\n");
  for (volatile unsigned spin = 0;; ++spin) {
  }
}
#endif

int main(void) {
  printf("selftest on %s (UART0 %s)\n", EOR_PLATFORM_NAME, "ok");
  eor_begin("selftest");
  const uint64_t start = eor_cycles();
#if defined(EOR_SELFTEST_FAULT)
  provoke_fault();
#elif defined(EOR_SELFTEST_STACK)
  printf("selftest: overflowing the stack\n");
  recurse(0);
#elif defined(EOR_SELFTEST_HANG)
  hang();
#endif
  int failed = selftest_run_checks();
  failed += selftest_run_kernel();
  selftest_emit_dtype_samples(3);
#if defined(EOR_SELFTEST_FAIL)
  failed += 1;
  eor_protocol_check("deliberate_failure", 0, 1, 0);
#endif
#if EOR_SELFTEST_BLOAT > 0
  selftest_bloat[0] = 1;
#endif
  report_memory();
  eor_protocol_metric("total_cycles", eor_cycles() - start, eor_cycles_unit(), eor_cycles_source());
  printf("selftest: %d check(s) failed\n", failed);
  eor_protocol_end(failed ? "fail" : "pass", failed ? EOR_EXIT_FAIL : EOR_EXIT_PASS);
  return failed ? EOR_EXIT_FAIL : EOR_EXIT_PASS;
}
