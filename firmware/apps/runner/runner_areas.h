/* The two areas the host fills before reset (QEMU -device loader, FVP --data):
 *   model area: runner_model_header, then the .pte at header_size;
 *   input area: runner_input_header, `count` runner_input_desc, then the tensor bytes;
 *   in a sample session each input set of the samples file has the input area's layout.
 * All fields little-endian. orchestrator/runner/areas.py writes exactly these layouts. */
#ifndef RUNNER_AREAS_H
#define RUNNER_AREAS_H

#include <stdint.h>

#define RUNNER_MODEL_MAGIC "EORMODL1"
#define RUNNER_INPUT_MAGIC "EORINPT1"
#define RUNNER_MAX_DIMS 8

struct runner_model_header {
  char magic[8];
  uint32_t header_size; /* offset of the .pte from the start of the area */
  uint32_t pte_size;
  uint32_t pte_crc32;   /* CRC-32 (IEEE) of the .pte bytes */
  uint32_t reserved[3];
};

struct runner_input_header {
  char magic[8];
  uint32_t header_size; /* bytes of this header plus the descriptors */
  uint32_t count;       /* number of input descriptors */
  uint32_t run_nonce;   /* echoed in the report: proves these inputs were read */
  uint32_t num_inferences;
  uint32_t samples;     /* 0: run these inputs. N: a session over N input sets, read one by
                         * one from RUNNER_SAMPLES_FILE (runner_samples.h) into this area */
  uint32_t reserved;
};

struct runner_input_desc {
  uint32_t dtype;  /* ExecuTorch ScalarType code */
  uint32_t ndim;
  uint32_t dims[RUNNER_MAX_DIMS];
  uint32_t offset; /* from the start of the input area */
  uint32_t nbytes;
};

#endif
