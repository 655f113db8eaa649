/* Fault handlers: print the fault type, PC, LR, xPSR, CFSR/HFSR and fault address (as text
 * and as a protocol record), then exit with EOR_EXIT_FAULT_BASE + kind. abort() too. */
#include <stdint.h>
#include <stdlib.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "eor/regs.h"

void eor_fault_report(const uint32_t *frame, uint32_t exc_return, unsigned kind)
    __attribute__((noreturn, used));

static const char *const fault_names[] = {"hard", "memmanage", "bus", "usage", "secure", "nmi"};
static const char *const fault_titles[] = {"Hard", "MemManage", "Bus", "Usage", "Secure", "NMI"};

/* A stack-limit fault must not fault again: Armv8-M Mainline clears MSPLIM first. */
#if defined(__ARM_ARCH_8M_MAIN__)
#define EOR_CLEAR_STACK_LIMIT "movs r3, #0\n msr msplim, r3\n"
#else
#define EOR_CLEAR_STACK_LIMIT ""
#endif

/* Each handler picks the stack the exception frame was pushed to and tail-calls the report
 * (Armv6-M and Armv8-M Baseline have no IT blocks or TST with an immediate). */
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
#define EOR_FAULT_HANDLER(name, kind)                                                  \
  __attribute__((naked)) void name(void) {                                            \
    __asm volatile("mov r0, lr\n"                                                     \
                   "movs r1, #4\n"                                                    \
                   "tst r0, r1\n"                                                     \
                   "bne 1f\n"                                                         \
                   "mrs r0, msp\n"                                                    \
                   "b 2f\n"                                                           \
                   "1: mrs r0, psp\n"                                                 \
                   "2: mov r1, lr\n"                                                  \
                   "movs r2, %0\n"                                                    \
                   "ldr r3, =eor_fault_report\n"                                      \
                   "bx r3\n"                                                          \
                   ".ltorg\n" ::"i"(kind));                                           \
  }
#else
#define EOR_FAULT_HANDLER(name, kind)                                                  \
  __attribute__((naked)) void name(void) {                                            \
    __asm volatile(EOR_CLEAR_STACK_LIMIT                                              \
                   "tst lr, #4\n"                                                     \
                   "ite eq\n"                                                         \
                   "mrseq r0, msp\n"                                                  \
                   "mrsne r0, psp\n"                                                  \
                   "mov r1, lr\n"                                                     \
                   "movs r2, %0\n"                                                    \
                   "b eor_fault_report\n" ::"i"(kind));                               \
  }
#endif

EOR_FAULT_HANDLER(HardFault_Handler, EOR_FAULT_HARD)
EOR_FAULT_HANDLER(MemManage_Handler, EOR_FAULT_MEMMANAGE)
EOR_FAULT_HANDLER(BusFault_Handler, EOR_FAULT_BUS)
EOR_FAULT_HANDLER(UsageFault_Handler, EOR_FAULT_USAGE)
EOR_FAULT_HANDLER(SecureFault_Handler, EOR_FAULT_SECURE)
EOR_FAULT_HANDLER(NMI_Handler, EOR_FAULT_NMI)

static uint32_t fault_address(uint32_t cfsr, int *valid) {
  *valid = 1;
  if (cfsr & CFSR_MMARVALID) return SCB_MMFAR;
  if (cfsr & CFSR_BFARVALID) return SCB_BFAR;
  if (SAU_SFSR & SFSR_SFARVALID) return SAU_SFAR;
  *valid = 0;
  return 0;
}

static void print_hex(const char *label, uint32_t value) {
  static const char digits[] = "0123456789abcdef";
  char text[12] = {' ', '0', 'x'};
  for (int i = 0; i < 8; ++i) text[3 + i] = digits[(value >> (28 - 4 * i)) & 0xFu];
  eor_uart_write(label, __builtin_strlen(label));
  eor_uart_write(text, 11);
}

void eor_fault_report(const uint32_t *frame, uint32_t exc_return, unsigned kind) {
  const uint32_t cfsr = SCB_CFSR, hfsr = SCB_HFSR;
  int address_valid;
  const uint32_t address = fault_address(cfsr, &address_valid);
  if (kind > EOR_FAULT_NMI) kind = EOR_FAULT_HARD;
  const char *name = fault_names[kind];

  eor_uart_write("\n", 1);
  eor_uart_write(fault_titles[kind], __builtin_strlen(fault_titles[kind]));
  eor_uart_write(" fault:", 7);
  print_hex(" PC", frame[6]);
  print_hex(" LR", frame[5]);
  print_hex(" xPSR", frame[7]);
  print_hex(" CFSR", cfsr);
  print_hex(" HFSR", hfsr);
  if (address_valid) print_hex(" address", address);
  eor_uart_write("\n", 1);

  eor_record_t record;
  eor_record_start(&record, "fault");
  eor_record_str(&record, "kind", name);
  eor_record_hex32(&record, "pc", frame[6]);
  eor_record_hex32(&record, "lr", frame[5]);
  eor_record_hex32(&record, "xpsr", frame[7]);
  eor_record_hex32(&record, "cfsr", cfsr);
  eor_record_hex32(&record, "hfsr", hfsr);
  eor_record_hex32(&record, "exc_return", exc_return);
  if (address_valid) eor_record_hex32(&record, "address", address);
  eor_record_emit(&record);
  eor_protocol_end("fault", (int)(EOR_EXIT_FAULT_BASE + kind));
  eor_semihosting_exit((int)(EOR_EXIT_FAULT_BASE + kind));
}

void abort(void) {
  eor_protocol_end("abort", EOR_EXIT_ABORT);
  eor_semihosting_exit(EOR_EXIT_ABORT);
}
