/* Cycle source: Armv8.1-M PMU CCNTR where it counts, else DWT CYCCNT, else SysTick
 * (24-bit, extended to 64 bits by its wrap interrupt). Probed once at reset. */
#include "eor/platform.h"
#include "eor/regs.h"

enum source { SOURCE_PMU, SOURCE_DWT, SOURCE_SYSTICK };

static enum source active = SOURCE_SYSTICK;
static volatile uint64_t systick_wraps;

#define SYSTICK_RELOAD 0x00FFFFFFu

static void spin(void) {
  for (volatile int i = 0; i < 64; ++i) {
  }
}

static int pmu_counts(void) {
#if !defined(__ARM_ARCH_8M_MAIN__)
  return 0; /* the PMU is Armv8.1-M's (GCC 12 marks it as 8-M Mainline, where it reads 0) */
#endif
  DCB_DEMCR |= DEMCR_TRCENA;
  PMU_CTRL = (1u << 0) | (1u << 2); /* enable, reset the cycle counter */
  PMU_CNTENSET = 1u << 31;
  const uint32_t before = PMU_CCNTR;
  spin();
  return PMU_CCNTR != before;
}

static int dwt_counts(void) {
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
  return 0; /* Armv6-M / Armv8-M Baseline DWT has no CYCCNT */
#endif
  DCB_DEMCR |= DEMCR_TRCENA;
  DWT_CYCCNT = 0;
  DWT_CTRL |= 1u;
  const uint32_t before = DWT_CYCCNT;
  spin();
  return DWT_CYCCNT != before;
}

void SysTick_Handler(void) { systick_wraps += (uint64_t)SYSTICK_RELOAD + 1u; }

static void systick_start(void) {
  SYST_RVR = SYSTICK_RELOAD;
  SYST_CVR = 0;
  SYST_CSR = (1u << 2) | (1u << 1) | (1u << 0); /* processor clock, interrupt, enable */
}

void eor_cycles_init(void) {
  if (pmu_counts()) {
    active = SOURCE_PMU;
  } else if (dwt_counts()) {
    active = SOURCE_DWT;
  } else {
    active = SOURCE_SYSTICK;
    systick_start();
  }
}

static uint64_t systick_now(void) {
  uint64_t wraps;
  uint32_t value;
  do {
    wraps = systick_wraps;
    value = SYST_CVR;
  } while (wraps != systick_wraps);
  return wraps + (SYSTICK_RELOAD - value);
}

uint64_t eor_cycles(void) {
  switch (active) {
    case SOURCE_PMU:
      return PMU_CCNTR;
    case SOURCE_DWT:
      return DWT_CYCCNT;
    default:
      return systick_now();
  }
}

const char *eor_cycles_unit(void) { return active == SOURCE_SYSTICK ? "ticks" : "cycles"; }

const char *eor_cycles_source(void) {
  static const char *const names[] = {"pmu_ccntr", "dwt_cyccnt", "systick"};
  return names[active];
}
