/* The command stream around the operations: the observer, the register file, the driver
   payload and DMA. */
#ifndef EM_STREAM_H
#define EM_STREAM_H

#include "em_state.h"

/* The operation observer (em_observe.c): count and report the operation `code` just run. */
void em_observe_reset(em_state *s);
int em_observe_op(em_state *s, unsigned code, unsigned param, size_t word);

/* The register file (em_regfile.c). */
/* Command names and which commands exist, in the layout of `arch` (55/65 share one). */
const char *em_opname(int arch, int kind, unsigned code);
int em_known_command(int arch, int kind, unsigned code);
/* The address a base register (cmd1 word | data << 32) holds. */
uint64_t em_base_of(uint64_t word);
/* Region `region` + offset when [offset, offset + length) lies inside it, else NULL (and fails). */
uint8_t *em_address(em_state *s, unsigned region, uint64_t offset, uint64_t length, const char *what);

/* The driver payload walked once (em_payload.c): config words and command streams in order,
   `malformed` with a message (and one %u value) when the payload is not well formed. Returns 0
   or the first non-zero a callback returned. */
typedef struct em_payload_visitor {
    int (*config)(void *ctx, uint32_t config);
    int (*stream)(void *ctx, const uint32_t *words, size_t count);
    int (*malformed)(void *ctx, const char *what, unsigned value);
} em_payload_visitor;
int em_walk_payload(const uint32_t *words, size_t count, const em_payload_visitor *visit, void *ctx);
/* The NPU a COP1 config word names: 55, 65 or 85 (0 for another product), and its MAC count. */
int em_config_arch(uint32_t config);
unsigned em_config_macs(uint32_t config);

/* NPU_OP_DMA_START (em_dma.c). */
int em_dma_start(em_state *s);

#endif
