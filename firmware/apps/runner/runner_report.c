/* The runner's records on the UART result protocol: tensors, metrics, failures, end. */
#include "runner_report.h"

#include <stdio.h>

#include "eor/platform.h"
#include "eor/protocol.h"

void eor_begin(const char *app);

/* ExecuTorch ScalarType codes (runtime/core/portable_type/scalar_type.h) -> protocol dtype. */
static const char *dtype_name(uint32_t scalar_type) {
  switch (scalar_type) {
    case 0: return "uint8";
    case 1: return "int8";
    case 2: return "int16";
    case 3: return "int32";
    case 4: return "int64";
    case 5: return "float16";
    case 6: return "float32";
    case 7: return "float64";
    case 11: return "bool";
    case 15: return "bfloat16";
    case 27: return "uint16";
    case 28: return "uint32";
    case 29: return "uint64";
    default: return "unknown";
  }
}

void runner_report_begin(void) { eor_begin("runner"); }

void runner_report_nonce(uint32_t run_nonce) {
  eor_protocol_metric("run_nonce", run_nonce, "", "host");
}

void runner_report_tensor(size_t index, uint32_t scalar_type, size_t ndim, const uint32_t *dims,
                          const void *data, size_t nbytes) {
  int32_t shape[8];
  for (size_t d = 0; d < ndim && d < 8; ++d) shape[d] = (int32_t)dims[d];
  eor_protocol_tensor((unsigned)index, dtype_name(scalar_type), shape, (unsigned)ndim, data,
                      nbytes);
}

void runner_report_non_tensor_output(size_t index) {
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_u64(&record, "output", index);
  eor_record_str(&record, "kind", "non_tensor");
  eor_record_emit(&record);
}

static void shape_text(char *text, size_t size, size_t ndim, const uint32_t *u, const int32_t *s) {
  size_t used = 0;
  text[0] = '\0';
  for (size_t d = 0; d < ndim && used < size; ++d) {
    long value = u ? (long)u[d] : (long)s[d];
    used += (size_t)snprintf(text + used, size - used, d ? "x%ld" : "%ld", value);
  }
}

void runner_report_input_mismatch(size_t index, uint32_t dtype, size_t ndim, const uint32_t *dims,
                                  uint32_t want_dtype, size_t want_ndim, const int32_t *want_dims) {
  char got[96], want[96];
  shape_text(got, sizeof got, ndim, dims, NULL);
  shape_text(want, sizeof want, want_ndim, NULL, want_dims);
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_u64(&record, "input_mismatch", index);
  eor_record_str(&record, "got_dtype", dtype_name(dtype));
  eor_record_str(&record, "got_shape", got);
  eor_record_str(&record, "want_dtype", dtype_name(want_dtype));
  eor_record_str(&record, "want_shape", want);
  eor_record_emit(&record);
}

void runner_report_cycles(uint64_t cycles, uint32_t runs, const char *source) {
  int ticks = source[0] == 's' && source[1] == 'y'; /* "systick" counts ticks, not cycles */
  eor_protocol_metric("total_cycles", cycles, ticks ? "ticks" : "cycles", source);
  eor_protocol_metric("inferences", runs, "", "runner");
}

void runner_report_pool(const char *name, size_t used, size_t size) {
  char key[64];
  snprintf(key, sizeof key, "%s_used", name);
  eor_protocol_metric(key, used, "bytes", "runner");
  snprintf(key, sizeof key, "%s_size", name);
  eor_protocol_metric(key, size, "bytes", "runner");
}

void runner_report_need(const char *what, size_t amount) {
  char key[64];
  snprintf(key, sizeof key, "need_%s", what);
  eor_protocol_metric(key, amount, "bytes", "runner");
}

void runner_report_value(const char *name, uint64_t bytes) {
  eor_protocol_metric(name, bytes, "bytes", "runner");
}

void runner_report_counter(const char *name, uint64_t value, const char *source) {
  eor_protocol_metric(name, value, "count", source);
}

void runner_report_end(int code, const char *message, uint32_t et_error) {
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_str(&record, "message", message);
  eor_record_hex32(&record, "et_error", et_error);
  eor_record_emit(&record);
  eor_protocol_end(code == 0 ? "pass" : "fail", code);
}
