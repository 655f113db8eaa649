// The devtools event tracer in the runner, as upstream's arm_executor_runner builds it with
// ET_EVENT_TRACER_ENABLED, but with a static buffer (no heap) and the ETDump sent back
// through the checksummed protocol (firmware/PROTOCOL.md `blob`) instead of a base64 log
// block. With RUNNER_DEBUG_BUFFER_SIZE the tracer also keeps every operator's output
// (upstream's ET_DUMP_INTERMEDIATE_OUTPUTS) in a debug buffer, sent as a second blob.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <new>

#include <executorch/devtools/etdump/etdump_flatcc.h>

#include "eor/protocol.h"
#include "runner_etdump.h"

using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::runtime::Span;

namespace {

__attribute__((section(".eor.bulk_bss"), aligned(64)))
uint8_t etdump_buffer[RUNNER_ETDUMP_BUFFER_SIZE];
alignas(ETDumpGen) uint8_t generator_storage[sizeof(ETDumpGen)];
ETDumpGen* generator = nullptr;

#if defined(RUNNER_DEBUG_BUFFER_SIZE)
__attribute__((section(".eor.bulk_bss"), aligned(16)))
uint8_t debug_buffer[RUNNER_DEBUG_BUFFER_SIZE];
#endif

}  // namespace

executorch::runtime::EventTracer* runner_event_tracer() {
  if (generator == nullptr) {
    generator = new (generator_storage) ETDumpGen(Span<uint8_t>(etdump_buffer,
                                                                sizeof(etdump_buffer)));
#if defined(RUNNER_DEBUG_BUFFER_SIZE)
    if (generator->set_debug_buffer(Span<uint8_t>(debug_buffer, sizeof(debug_buffer))).ok()) {
      generator->set_event_tracer_debug_level(
          executorch::runtime::EventTracerDebugLogLevel::kIntermediateOutputs);
    }
#endif
  }
  return generator;
}

void runner_etdump_report() {
  if (generator == nullptr) {
    return;
  }
#if defined(RUNNER_DEBUG_BUFFER_SIZE)
  const size_t debug_used = generator->get_data_sink()->get_used_bytes();
#endif
  ETDumpResult result = generator->get_etdump_data();
  eor_protocol_metric("etdump_bytes", result.size, "bytes", nullptr);
  eor_protocol_metric("etdump_buffer_size", sizeof(etdump_buffer), "bytes", nullptr);
  if (result.buf != nullptr && result.size != 0) {
    eor_protocol_blob("etdump", result.buf, result.size);
  }
#if defined(RUNNER_DEBUG_BUFFER_SIZE)
  eor_protocol_metric("debug_buffer_bytes", debug_used, "bytes", nullptr);
  eor_protocol_metric("debug_buffer_size", sizeof(debug_buffer), "bytes", nullptr);
  eor_protocol_blob("debug_buffer", debug_buffer, debug_used);
#endif
}

// newlib-nano's aligned_alloc (linked by flatcc's default allocator) calls posix_memalign,
// which newlib-nano lacks. The generator above runs on its static buffer and never takes
// that path; a call would mean one we do not support, so it fails instead of guessing.
extern "C" int posix_memalign(void** memptr, size_t alignment, size_t size) {
  (void)alignment;
  (void)size;
  *memptr = nullptr;
  return ENOMEM;
}
