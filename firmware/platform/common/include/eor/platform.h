/* The platform layer every app links against (firmware/platform). */
#ifndef EOR_PLATFORM_H
#define EOR_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes; the simulator's exit status becomes this value (semihosting). */
enum {
  EOR_EXIT_PASS = 0,
  EOR_EXIT_FAIL = 1,
  EOR_EXIT_ABORT = 3,
  EOR_EXIT_FAULT_BASE = 64 /* + eor_fault_kind */
};

enum eor_fault_kind {
  EOR_FAULT_HARD = 0,
  EOR_FAULT_MEMMANAGE = 1,
  EOR_FAULT_BUS = 2,
  EOR_FAULT_USAGE = 3,
  EOR_FAULT_SECURE = 4,
  EOR_FAULT_NMI = 5
};

/* UART0 (CMSDK APB UART, TX enabled by eor_uart_init, called from reset). */
void eor_uart_init(void);
void eor_uart_putc(char c);
void eor_uart_write(const char *text, size_t length);
int eor_uart_getc(void); /* -1 when no byte is waiting */

/* Semihosting (BKPT 0xAB). Exit makes the code the simulator's exit status. */
void eor_semihosting_exit(int code) __attribute__((noreturn));
int eor_semihosting_open(const char *path, int mode); /* mode: 0 "r" .. 11 "a+b" */
int eor_semihosting_close(int handle);
int eor_semihosting_write(int handle, const void *data, size_t length); /* bytes NOT written */
int eor_semihosting_read(int handle, void *data, size_t length);        /* bytes NOT read */
int eor_semihosting_seek(int handle, size_t position); /* 0 ok */
long eor_semihosting_flen(int handle);
int eor_semihosting_remove(const char *path);
void eor_semihosting_write0(const char *text);

/* Cycle source: the Armv8.1-M PMU cycle counter, DWT CYCCNT, else SysTick (probed at
 * reset). eor_cycles_source() names it: "pmu_ccntr", "dwt_cyccnt" or "systick". */
void eor_cycles_init(void);
uint64_t eor_cycles(void);
const char *eor_cycles_source(void);
/* "cycles" for CPU cycle counters, "ticks" for SysTick (processor clock ticks; under QEMU
 * -icount shift=0 they follow virtual time and are deterministic, not CPU cycles). */
const char *eor_cycles_unit(void);

/* GNU build id of this ELF (the nonce the host checks), as bytes. */
const uint8_t *eor_build_id(size_t *length);

/* Protocol begin record for `app` with this platform's name and build id. */
void eor_begin(const char *app);

/* Interrupts: install a handler for external IRQ n in the RAM vector table and enable it. */
void eor_irq_install(unsigned irq, void (*handler)(void));

/* Memory layout (linker symbols): fixed areas the simulator fills, heap and stack use. */
void *eor_model_area(size_t *size);
void *eor_input_area(size_t *size);
size_t eor_heap_used(void);
size_t eor_heap_size(void);
size_t eor_stack_used(void);
size_t eor_stack_size(void);

#ifdef __cplusplus
}
#endif

#endif
