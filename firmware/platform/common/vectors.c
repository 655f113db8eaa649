/* The boot vector table (in VECTORS) and a RAM copy that apps extend with eor_irq_install. */
#include <stdint.h>
#include <string.h>

#include "eor/platform.h"
#include "eor/regs.h"

#define EOR_EXTERNAL_IRQS 96
#define EOR_VECTORS (16 + EOR_EXTERNAL_IRQS)

typedef void (*eor_vector_t)(void);

extern uint32_t __eor_stack_top[];
void Reset_Handler(void);
void NMI_Handler(void);
void HardFault_Handler(void);
void MemManage_Handler(void);
void BusFault_Handler(void);
void UsageFault_Handler(void);
void SecureFault_Handler(void);
void SysTick_Handler(void);

void Default_Handler(void) {
  for (;;) {
    __asm volatile("wfi");
  }
}

void SVC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void DebugMon_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));

__attribute__((section(".vectors"), used)) static const eor_vector_t boot_vectors[EOR_VECTORS] = {
    (eor_vector_t)(uintptr_t)__eor_stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    SecureFault_Handler,
    0, 0, 0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    [16 ... EOR_VECTORS - 1] = Default_Handler,
};

/* VTOR needs alignment to the next power of two above the table size. */
static eor_vector_t ram_vectors[EOR_VECTORS] __attribute__((aligned(512)));

void eor_vectors_relocate(void) {
  memcpy(ram_vectors, boot_vectors, sizeof(ram_vectors));
  SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
  __asm volatile("dsb\n isb" ::: "memory");
}

void eor_irq_install(unsigned irq, void (*handler)(void)) {
  if (irq >= EOR_EXTERNAL_IRQS) return;
  ram_vectors[16 + irq] = handler;
  __asm volatile("dsb\n isb" ::: "memory");
  NVIC_ISER(irq / 32u) = 1u << (irq % 32u);
}
