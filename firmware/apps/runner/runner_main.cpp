// The ExecuTorch runner: one ELF per (platform, NPU config, memory mode, build type, kernel
// set) runs any model. The host places the .pte and the inputs in the model / input areas;
// the runner loads, runs and reports every output bit-exact through the UART protocol,
// then exits through semihosting with a code from runner_exit.h. An input area that asks
// for a sample session runs every input set of the samples file (runner_samples.h) in turn.
#include <cstdint>
#include <cstring>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "eor/platform.h"
#include "runner_areas.h"
#include "runner_etdump.h"
#include "runner_exit.h"
#include "runner_npu.h"
#include "runner_report.h"
#include "runner_samples.h"

using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::TensorInfo;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;

namespace {

// ---- Pools (sizes and placement from the catalogue, via CMake) --------------------------
#define RUNNER_BULK __attribute__((section(".eor.bulk_bss"), aligned(16)))
#define RUNNER_FAST __attribute__((section(".eor.fast_bss"), aligned(16)))

RUNNER_BULK uint8_t method_pool[RUNNER_METHOD_POOL_SIZE];
#if RUNNER_TEMP_POOL_FAST
RUNNER_FAST uint8_t temp_pool[RUNNER_TEMP_POOL_SIZE];
#else
RUNNER_BULK uint8_t temp_pool[RUNNER_TEMP_POOL_SIZE];
#endif

// A bump allocator that remembers its high-water mark across resets (the temp pool is
// reset by the runtime after every kernel).
class PeakAllocator : public MemoryAllocator {
 public:
  PeakAllocator(uint32_t size, uint8_t* base) : MemoryAllocator(size, base) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    void* result = MemoryAllocator::allocate(size, alignment);
    if (used_size() > peak_) {
      peak_ = used_size();
    }
    if (result == nullptr) {
      failed_ = true;
    }
    return result;
  }
  size_t peak() const { return peak_; }
  bool failed() const { return failed_; }

 private:
  size_t peak_ = 0;
  bool failed_ = false;
};

uint32_t crc32(const uint8_t* data, size_t length) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < length; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
  }
  return ~crc;
}

[[noreturn]] void fail(int code, const char* what, Error error) {
  runner_report_end(code, what, static_cast<uint32_t>(error));
  eor_semihosting_exit(code);
}

const runner_model_header* model_header() {
  size_t area_size = 0;
  auto* header = static_cast<const runner_model_header*>(eor_model_area(&area_size));
  if (std::memcmp(header->magic, RUNNER_MODEL_MAGIC, 8) != 0) {
    fail(RUNNER_EXIT_AREA, "model area has no model (was the .pte loaded at the model address?)",
         Error::InvalidArgument);
  }
  if (header->header_size + static_cast<size_t>(header->pte_size) > area_size) {
    fail(RUNNER_EXIT_AREA, "model larger than the model area", Error::InvalidArgument);
  }
  const auto* pte = reinterpret_cast<const uint8_t*>(header) + header->header_size;
  if (crc32(pte, header->pte_size) != header->pte_crc32) {
    fail(RUNNER_EXIT_AREA, "model area CRC mismatch", Error::InvalidArgument);
  }
  return header;
}

const runner_input_header* input_header() {
  size_t area_size = 0;
  auto* header = static_cast<const runner_input_header*>(eor_input_area(&area_size));
  if (std::memcmp(header->magic, RUNNER_INPUT_MAGIC, 8) != 0) {
    fail(RUNNER_EXIT_AREA, "input area has no inputs (was the input file loaded?)",
         Error::InvalidArgument);
  }
  if (header->header_size > area_size) {
    fail(RUNNER_EXIT_AREA, "input header larger than the input area", Error::InvalidArgument);
  }
  return header;
}

// Set input i from descriptor `desc`: dtype, rank, shape and size must match the method.
void set_input(Method& method, const MethodMeta& meta, const runner_input_header* inputs,
               size_t i, TensorImpl* impl_storage) {
  const auto* descs = reinterpret_cast<const runner_input_desc*>(inputs + 1);
  const runner_input_desc& desc = descs[i];
  Result<TensorInfo> info = meta.input_tensor_meta(i);
  if (!info.ok()) {
    fail(RUNNER_EXIT_INPUT, "method input is not a tensor", info.error());
  }
  bool same = desc.dtype == static_cast<uint32_t>(info->scalar_type()) &&
              desc.ndim == info->sizes().size() && desc.nbytes == info->nbytes();
  for (size_t d = 0; same && d < desc.ndim; ++d) {
    same = desc.dims[d] == static_cast<uint32_t>(info->sizes()[d]);
  }
  if (!same) {
    runner_report_input_mismatch(i, desc.dtype, desc.ndim, desc.dims,
                                 static_cast<uint32_t>(info->scalar_type()),
                                 info->sizes().size(), info->sizes().data());
    fail(RUNNER_EXIT_INPUT, "input does not match the method's input", Error::InvalidArgument);
  }
  auto* data = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(inputs) + desc.offset);
  new (impl_storage) TensorImpl(
      info->scalar_type(), info->sizes().size(),
      const_cast<TensorImpl::SizesType*>(info->sizes().data()), data,
      const_cast<TensorImpl::DimOrderType*>(info->dim_order().data()));
  Error error = method.set_input(EValue(Tensor(impl_storage)), i);
  if (error != Error::Ok) {
    fail(RUNNER_EXIT_INPUT, "set_input failed", error);
  }
}

void report_outputs(const Method& method) {
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& value = method.get_output(i);
    if (!value.isTensor()) {
      runner_report_non_tensor_output(i);
      continue;
    }
    const Tensor& tensor = value.toTensor();
    uint32_t dims[RUNNER_MAX_DIMS] = {0};
    size_t ndim = tensor.dim() < RUNNER_MAX_DIMS ? tensor.dim() : RUNNER_MAX_DIMS;
    for (size_t d = 0; d < ndim; ++d) {
      dims[d] = static_cast<uint32_t>(tensor.size(d));
    }
    runner_report_tensor(i, static_cast<uint32_t>(tensor.scalar_type()), ndim, dims,
                         tensor.const_data_ptr(), tensor.nbytes());
  }
}


// Set every input from the input area and execute `runs` times; the cycles it took.
uint64_t run_inputs(Method& method, const MethodMeta& meta, const runner_input_header* inputs,
                    uint32_t runs, const PeakAllocator& temp_allocator) {
  alignas(TensorImpl) static uint8_t impls[16][sizeof(TensorImpl)];
  if (method.inputs_size() != inputs->count) {
    runner_report_need("inputs", method.inputs_size());
    fail(RUNNER_EXIT_INPUT, "wrong number of inputs", Error::InvalidArgument);
  }
  if (inputs->count > 16) {
    fail(RUNNER_EXIT_INPUT, "more than 16 inputs", Error::NotSupported);
  }
  for (size_t i = 0; i < inputs->count; ++i) {
    set_input(method, meta, inputs, i, reinterpret_cast<TensorImpl*>(impls[i]));
  }
  uint64_t start = eor_cycles();
  for (uint32_t r = 0; r < runs; ++r) {
    Error error = method.execute();
    if (error != Error::Ok) {
      runner_report_pool("temp_pool", temp_allocator.peak(), sizeof(temp_pool));
      fail(temp_allocator.failed() ? RUNNER_EXIT_ALLOC : RUNNER_EXIT_EXEC,
           temp_allocator.failed() ? "temp pool too small (Ethos-U scratch / kernel temp)"
                                   : "Method::execute failed",
           error);
    }
  }
  return eor_cycles() - start;
}

// A sample session: each input set of the samples file into the input area, run, report
// its outputs and close it with a `sample` record; the cycles of all of them.
uint64_t run_samples(Method& method, const MethodMeta& meta, uint32_t samples,
                     const PeakAllocator& temp_allocator) {
  size_t area_size = 0;
  auto* area = static_cast<uint8_t*>(eor_input_area(&area_size));
  const char* problem = runner_samples_open(samples);
  if (problem != nullptr) {
    fail(RUNNER_EXIT_INPUT, problem, Error::InvalidArgument);
  }
  uint64_t total = 0;
  for (uint32_t k = 0; k < samples; ++k) {
    if ((problem = runner_samples_read(k, area, area_size)) != nullptr) {
      fail(RUNNER_EXIT_INPUT, problem, Error::InvalidArgument);
    }
    uint64_t cycles = run_inputs(method, meta, input_header(), 1, temp_allocator);
    report_outputs(method);
    runner_report_sample(k, cycles, eor_cycles_source());
    total += cycles;
  }
  return total;
}

}  // namespace

int main() {
  executorch::runtime::runtime_init();
  runner_report_begin();
  const runner_model_header* model = model_header();
  const runner_input_header* inputs = input_header();
  runner_report_nonce(inputs->run_nonce);

  if (runner_npu_init() != 0) {
    fail(RUNNER_EXIT_NPU, "Ethos-U NPU init failed (no NPU at the platform's base address?)",
         Error::NotSupported);
  }

  BufferDataLoader loader(reinterpret_cast<const uint8_t*>(model) + model->header_size,
                          model->pte_size);
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) {
    fail(RUNNER_EXIT_LOAD, "Program::load failed", program.error());
  }
  Result<const char*> name = program->get_method_name(0);
  if (!name.ok()) {
    fail(RUNNER_EXIT_LOAD, "program has no method", name.error());
  }
  Result<MethodMeta> meta = program->method_meta(*name);
  if (!meta.ok()) {
    fail(RUNNER_EXIT_LOAD, "method_meta failed", meta.error());
  }

  PeakAllocator method_allocator(sizeof(method_pool), method_pool);
  PeakAllocator temp_allocator(sizeof(temp_pool), temp_pool);
  constexpr size_t kMaxPlanned = 16;
  Span<uint8_t> planned_spans[kMaxPlanned];
  size_t planned_count = meta->num_memory_planned_buffers();
  size_t planned_bytes = 0;
  if (planned_count > kMaxPlanned) {
    fail(RUNNER_EXIT_ALLOC, "too many planned memory buffers", Error::NotSupported);
  }
  for (size_t id = 0; id < planned_count; ++id) {
    size_t size = static_cast<size_t>(meta->memory_planned_buffer_size(id).get());
    auto* buffer = static_cast<uint8_t*>(method_allocator.allocate(size, 16));
    if (buffer == nullptr) {
      runner_report_pool("method_pool", method_allocator.used_size(), sizeof(method_pool));
      runner_report_need("planned_buffers", size);
      fail(RUNNER_EXIT_ALLOC, "method pool too small for the planned buffers",
           Error::MemoryAllocationFailed);
    }
    planned_spans[id] = {buffer, size};
    planned_bytes += size;
  }
  HierarchicalAllocator planned({planned_spans, planned_count});
  MemoryManager memory(&method_allocator, &planned, &temp_allocator);

  Result<Method> method = program->load_method(*name, &memory, runner_event_tracer());
  if (!method.ok()) {
    runner_report_pool("method_pool", method_allocator.used_size(), sizeof(method_pool));
    runner_report_pool("temp_pool", temp_allocator.peak(), sizeof(temp_pool));
    if (method_allocator.failed()) {
      fail(RUNNER_EXIT_ALLOC, "method pool too small to load the method", method.error());
    }
    if (temp_allocator.failed()) {
      fail(RUNNER_EXIT_ALLOC, "temp pool too small to load the method", method.error());
    }
    fail(method.error() == Error::MemoryAllocationFailed ? RUNNER_EXIT_ALLOC : RUNNER_EXIT_METHOD,
         "load_method failed", method.error());
  }

  uint32_t runs = inputs->num_inferences ? inputs->num_inferences : 1;
  runner_npu_pmu_reset();
  uint64_t cycles = 0;
  if (inputs->samples == 0) {
    cycles = run_inputs(*method, *meta, inputs, runs, temp_allocator);
    report_outputs(*method);
  } else {
    runs = inputs->samples;
    cycles = run_samples(*method, *meta, inputs->samples, temp_allocator);
  }

  runner_etdump_report();
  runner_report_cycles(cycles, runs, eor_cycles_source());
  runner_npu_pmu_report(runs);
  runner_report_pool("method_pool", method_allocator.used_size(), sizeof(method_pool));
  runner_report_pool("temp_pool", temp_allocator.peak(), sizeof(temp_pool));
  runner_npu_pool_report();
  runner_report_value("planned_bytes", planned_bytes);
  runner_report_value("pte_bytes", model->pte_size);
  runner_report_end(EOR_EXIT_PASS, "ok", 0);
  eor_semihosting_exit(EOR_EXIT_PASS);
}
