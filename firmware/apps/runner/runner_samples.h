/* A sample session: many input sets through one loaded method in one simulator run.
 *
 * The host writes every input set into RUNNER_SAMPLES_FILE in the simulator's semihosting
 * directory: a header, then `count` records of `stride` bytes, each an input area
 * (runner_areas.h) of its own. The runner reads record k into the input area, runs it and
 * reports its outputs followed by a `sample` record, so the host keeps every finished
 * sample when a session dies. Semihosting file reads work the same on QEMU and the FVPs;
 * see firmware/PROTOCOL.md ("Sample sessions") for why not the UART. */
#ifndef RUNNER_SAMPLES_H
#define RUNNER_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RUNNER_SAMPLES_FILE "eor_samples.bin"
#define RUNNER_SAMPLES_MAGIC "EORSMPL1"

struct runner_samples_header {
  char magic[8];
  uint32_t header_size; /* offset of record 0 */
  uint32_t count;       /* records in the file */
  uint32_t stride;      /* bytes per record */
  uint32_t first;       /* the data set index of record 0 (a resumed session starts later) */
  uint32_t run_nonce;   /* every record carries it too */
  uint32_t reserved;
};

/* Open the samples file and check its header against the session's sample count; returns
 * NULL, or the reason it cannot be used. */
const char *runner_samples_open(uint32_t samples);
/* Read record k into `area` (at most area_size bytes); NULL, or why not. */
const char *runner_samples_read(uint32_t k, void *area, size_t area_size);
/* The data set index of record k. */
uint32_t runner_samples_index(uint32_t k);
/* After sample k's output tensors: its data set index and cycles, so the host can close it. */
void runner_report_sample(uint32_t k, uint64_t cycles, const char *source);

#ifdef __cplusplus
}
#endif

#endif
