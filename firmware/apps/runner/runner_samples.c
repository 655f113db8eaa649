/* A sample session's input sets, read through semihosting (see runner_samples.h). */
#include "runner_samples.h"

#include <string.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "runner_areas.h"

#define SEMIHOSTING_MODE_RB 1

static int samples_handle = -1;
static struct runner_samples_header samples_header;

static const char *read_at(uint32_t offset, void *data, size_t length) {
  if (eor_semihosting_seek(samples_handle, offset) != 0) {
    return "cannot seek in the samples file";
  }
  if (eor_semihosting_read(samples_handle, data, length) != 0) {
    return "samples file ended early";
  }
  return NULL;
}

const char *runner_samples_open(uint32_t samples) {
  samples_handle = eor_semihosting_open(RUNNER_SAMPLES_FILE, SEMIHOSTING_MODE_RB);
  if (samples_handle < 0) {
    return "cannot open the samples file through semihosting";
  }
  const char *problem = read_at(0, &samples_header, sizeof samples_header);
  if (problem != NULL) {
    return problem;
  }
  if (memcmp(samples_header.magic, RUNNER_SAMPLES_MAGIC, 8) != 0) {
    return "the samples file has no samples header";
  }
  if (samples_header.count != samples) {
    return "the samples file holds another number of samples than the input area says";
  }
  return NULL;
}

const char *runner_samples_read(uint32_t k, void *area, size_t area_size) {
  if (samples_handle < 0 || k >= samples_header.count) {
    return "no such sample";
  }
  if (samples_header.stride > area_size) {
    return "a sample is larger than the input area";
  }
  const char *problem = read_at(samples_header.header_size + k * samples_header.stride, area,
                                samples_header.stride);
  if (problem != NULL) {
    return problem;
  }
  const struct runner_input_header *header = (const struct runner_input_header *)area;
  if (memcmp(header->magic, RUNNER_INPUT_MAGIC, 8) != 0 ||
      header->run_nonce != samples_header.run_nonce) {
    return "a sample record is damaged (magic or nonce)";
  }
  return NULL;
}

uint32_t runner_samples_index(uint32_t k) { return samples_header.first + k; }

void runner_report_sample(uint32_t k, uint64_t cycles, const char *source) {
  int ticks = source[0] == 's' && source[1] == 'y'; /* "systick" counts ticks */
  eor_record_t record;
  eor_record_start(&record, "sample");
  eor_record_u64(&record, "seq", k);
  eor_record_u64(&record, "index", runner_samples_index(k));
  eor_record_u64(&record, "value", cycles);
  eor_record_str(&record, "unit", ticks ? "ticks" : "cycles");
  eor_record_str(&record, "source", source);
  eor_record_emit(&record);
}
