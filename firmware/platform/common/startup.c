/* Reset: enable FPU/MVE (cores that have them), set VTOR and the stack limit (Armv8-M
 * Mainline), initialise .data/.bss, run C/C++
 * constructors, bring up UART0 and the cycle source, call main, exit via semihosting. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "eor/regs.h"

extern uint32_t __eor_data_start[], __eor_data_end[], __eor_data_load[];
extern uint32_t __eor_bss_start[], __eor_bss_end[];
extern uint32_t __eor_bulk_zbss_start[], __eor_bulk_zbss_end[];
extern uint32_t __eor_stack_limit[];
extern void (*__eor_preinit_array_start[])(void), (*__eor_preinit_array_end[])(void);
extern void (*__eor_init_array_start[])(void), (*__eor_init_array_end[])(void);

extern int main(void);
void eor_vectors_relocate(void);
void eor_stack_paint(void);

/* C++ static objects register destructors against this handle (no crtbegin.o). */
void *__dso_handle = 0;

static void enable_fpu_and_mve(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* CP10/CP11 full access covers the FPU and MVE (Helium). */
  SCB_CPACR |= (3u << 20) | (3u << 22);
  __asm volatile("dsb\n isb" ::: "memory");
#endif
}

static void set_stack_limit(void) {
#if defined(__ARM_ARCH_8M_MAIN__)
  __asm volatile("msr msplim, %0" : : "r"(__eor_stack_limit));
#endif /* Armv6-M, Armv7-M and Armv8-M Baseline: no MSPLIM, the painted stack shows overflow */
}

static void init_memory(void) {
  uint32_t *source = __eor_data_load;
  uint32_t *dest = __eor_data_start;
  if (source != dest) {
    while (dest < __eor_data_end) *dest++ = *source++;
  }
  for (dest = __eor_bss_start; dest < __eor_bss_end; ++dest) *dest = 0;
  for (dest = __eor_bulk_zbss_start; dest < __eor_bulk_zbss_end; ++dest) *dest = 0;
}

static void run_constructors(void) {
  for (void (**fn)(void) = __eor_preinit_array_start; fn < __eor_preinit_array_end; ++fn) (*fn)();
  for (void (**fn)(void) = __eor_init_array_start; fn < __eor_init_array_end; ++fn) (*fn)();
}

void Reset_Handler(void) __attribute__((noreturn));
void Reset_Handler(void) {
  __asm volatile("cpsid i" ::: "memory");
  enable_fpu_and_mve();
  set_stack_limit();
  init_memory();
  eor_stack_paint();
  eor_vectors_relocate();
  eor_uart_init();
  eor_protocol_set_writer(eor_uart_write);
  setvbuf(stdout, NULL, _IONBF, 0);
  __asm volatile("cpsie i" ::: "memory");
  eor_cycles_init();
  run_constructors();
  exit(main());
}
