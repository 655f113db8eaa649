/* Armv8-M / Armv8.1-M system registers used by the platform layer (Secure state). */
#ifndef EOR_REGS_H
#define EOR_REGS_H

#include <stdint.h>

#define EOR_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* System Control Block */
#define SCB_ICSR      EOR_REG32(0xE000ED04u)
#define SCB_VTOR      EOR_REG32(0xE000ED08u)
#define SCB_AIRCR     EOR_REG32(0xE000ED0Cu)
#define SCB_CCR       EOR_REG32(0xE000ED14u)
#define SCB_SHCSR     EOR_REG32(0xE000ED24u)
#define SCB_CFSR      EOR_REG32(0xE000ED28u)
#define SCB_HFSR      EOR_REG32(0xE000ED2Cu)
#define SCB_MMFAR     EOR_REG32(0xE000ED34u)
#define SCB_BFAR      EOR_REG32(0xE000ED38u)
#define SCB_CPACR     EOR_REG32(0xE000ED88u)
#define SCB_NSACR     EOR_REG32(0xE000ED8Cu)
#define SAU_SFSR      EOR_REG32(0xE000EDE4u)
#define SAU_SFAR      EOR_REG32(0xE000EDE8u)
#define DCB_DEMCR     EOR_REG32(0xE000EDFCu)

/* SysTick */
#define SYST_CSR      EOR_REG32(0xE000E010u)
#define SYST_RVR      EOR_REG32(0xE000E014u)
#define SYST_CVR      EOR_REG32(0xE000E018u)

/* NVIC */
#define NVIC_ISER(n)  EOR_REG32(0xE000E100u + 4u * (n))
#define NVIC_ICER(n)  EOR_REG32(0xE000E180u + 4u * (n))

/* DWT */
#define DWT_CTRL      EOR_REG32(0xE0001000u)
#define DWT_CYCCNT    EOR_REG32(0xE0001004u)

/* Armv8.1-M PMU */
#define PMU_CCNTR     EOR_REG32(0xE000307Cu)
#define PMU_CNTENSET  EOR_REG32(0xE0003C00u)
#define PMU_CTRL      EOR_REG32(0xE0003E04u)
#define PMU_TYPE      EOR_REG32(0xE0003E00u)

#define DEMCR_TRCENA  (1u << 24)
#define CFSR_MMARVALID (1u << 7)
#define CFSR_BFARVALID (1u << 15)
#define SFSR_SFARVALID (1u << 6)

#endif
