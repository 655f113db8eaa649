/* The shape of a generated NPU self-test case (npu_case_data.h, written by
 * orchestrator/npu_selftest/case.py): command stream, weights, scratch size, and per input /
 * expected output its scratch offset, size, bytes, dtype and shape. */
#ifndef NPU_CASE_H
#define NPU_CASE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t offset; /* bytes into the scratch region (base pointer 1) */
  uint32_t size;
  const uint8_t *data;
  const char *dtype;
  const int32_t *shape;
  unsigned rank;
} npu_case_io;

#include "npu_case_data.h"

#endif
