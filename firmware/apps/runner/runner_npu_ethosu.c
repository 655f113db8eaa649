/* Ethos-U: the Corstone timing adapters programmed, driver init at the platform's NPU base
 * and IRQ, the PMU programmed with the catalogue's event set around every inference, counts
 * accumulated across delegations. */
#include <stddef.h>
#include <stdint.h>

#include <ethosu_driver.h>
#include <pmu_ethosu.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "runner_npu.h"
#include "runner_pmu_events.h" /* generated: RUNNER_PMU_EVENT(name) per catalogue event */
#include "runner_report.h"
#include "runner_timing_adapters.h" /* generated: RUNNER_TA_WRITE(address, value) rows */

static struct ethosu_driver npu;

static const enum ethosu_pmu_event_type events[] = {
#define RUNNER_PMU_EVENT(name) name,
  RUNNER_PMU_EVENTS
#undef RUNNER_PMU_EVENT
};
static const char *const event_names[] = {
#define RUNNER_PMU_EVENT(name) #name,
  RUNNER_PMU_EVENTS
#undef RUNNER_PMU_EVENT
};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))

static uint64_t npu_cycles;
static uint64_t event_counts[N_EVENTS];
static uint32_t npu_inferences;

static void npu_irq(void) { ethosu_irq_handler(&npu); }

/* The Corstone FVP's timing adapters sit between the NPU's AXI ports and memory and add the
 * latency and bandwidth limits of the modelled system; without them the NPU sees ideal
 * memory. Register layout (one 32-bit register per setting: MAXR 0x00, MAXW 0x04, MAXRW
 * 0x08, RLATENCY 0x0C, WLATENCY 0x10, PULSE_ON 0x14, PULSE_OFF 0x18, BWCAP 0x1C, PERFCTRL
 * 0x20, PERFCNT 0x24, MODE 0x28, HISTBIN 0x30, HISTCNT 0x34) from Arm's Ethos-U core
 * platform driver drivers/timing_adapter/src/timing_adapter.c, also in Zephyr's
 * drivers/misc/ethos_u/ethos_u_arm.c. The host turns the catalogue's settings into
 * address/value pairs (already masked to each field), so this only stores them. */
static void program_timing_adapters(void) {
#define RUNNER_TA_WRITE(address, value) *(volatile uint32_t *)(uintptr_t)(address) = (value);
  RUNNER_TA_WRITES
#undef RUNNER_TA_WRITE
}

int runner_npu_init(void) {
  program_timing_adapters();
  eor_irq_install(RUNNER_NPU_IRQ, npu_irq);
  return ethosu_init(&npu, (void *)RUNNER_NPU_BASE, NULL, 0, 1, 1);
}

void runner_npu_pmu_reset(void) {
  npu_cycles = 0;
  npu_inferences = 0;
  for (size_t i = 0; i < N_EVENTS; ++i) event_counts[i] = 0;
}

/* Driver callbacks (weak in the driver): count only while a command stream runs. */
void ethosu_inference_begin(struct ethosu_driver *drv, void *user_arg) {
  (void)user_arg;
  ETHOSU_PMU_Enable(drv);
  for (size_t i = 0; i < N_EVENTS && i < ETHOSU_PMU_NCOUNTERS; ++i) {
    ETHOSU_PMU_Set_EVTYPER(drv, (uint32_t)i, events[i]);
  }
  ETHOSU_PMU_CYCCNT_Reset(drv);
  ETHOSU_PMU_EVCNTR_ALL_Reset(drv);
  ETHOSU_PMU_PMCCNTR_CFG_Set_Start_Event(drv, ETHOSU_PMU_NPU_ACTIVE);
  ETHOSU_PMU_PMCCNTR_CFG_Set_Stop_Event(drv, ETHOSU_PMU_NPU_IDLE);
  ETHOSU_PMU_CNTR_Enable(drv, ETHOSU_PMU_CCNT_Msk | ((1u << N_EVENTS) - 1u));
}

void ethosu_inference_end(struct ethosu_driver *drv, void *user_arg) {
  (void)user_arg;
  npu_cycles += ETHOSU_PMU_Get_CCNTR(drv);
  for (size_t i = 0; i < N_EVENTS && i < ETHOSU_PMU_NCOUNTERS; ++i) {
    event_counts[i] += ETHOSU_PMU_Get_EVCNTR(drv, (uint32_t)i);
  }
  ETHOSU_PMU_Disable(drv);
  ++npu_inferences;
}

void runner_npu_pmu_report(uint32_t runs) {
  (void)runs;
  runner_report_counter("npu_delegations", npu_inferences, "ethosu_driver");
  eor_protocol_metric("ethosu_pmu_cycle_cntr", npu_cycles, "cycles", "ethosu_pmu");
  for (size_t i = 0; i < N_EVENTS; ++i) {
    runner_report_counter(event_names[i], event_counts[i], "ethosu_pmu");
  }
}
