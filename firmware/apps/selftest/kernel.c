/* A small int8 x int8 -> int32 matrix product with a known result, timed with the cycle
 * source; inputs and output are reported as tensors so the host can recompute it. */
#include <string.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "selftest.h"

enum { M = SELFTEST_KERNEL_M, K = SELFTEST_KERNEL_K, N = SELFTEST_KERNEL_N };

/* Sum of all outputs for the inputs below (computed on the host, checked by tests). */
#define EXPECTED_SUM 247552

static int8_t a[M][K];
static int8_t b[K][N];
static int32_t c[M][N];

static void fill_inputs(void) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a[i][k] = (int8_t)(((i * K + k) * 7) % 256 - 128);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b[k][j] = (int8_t)(((k * N + j) * 13) % 256 - 128);
}

static void matmul(void) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      int32_t sum = 0;
      for (int k = 0; k < K; ++k) sum += (int32_t)a[i][k] * (int32_t)b[k][j];
      c[i][j] = sum;
    }
  }
}

int selftest_run_kernel(void) {
  fill_inputs();
  const uint64_t start = eor_cycles();
  matmul();
  const uint64_t cycles = eor_cycles() - start;
  eor_protocol_metric("kernel_cycles", cycles, eor_cycles_unit(), eor_cycles_source());

  int64_t sum = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) sum += c[i][j];
  eor_protocol_check("kernel_sum", sum == EXPECTED_SUM, sum, EXPECTED_SUM);

  const int32_t shape_a[2] = {M, K}, shape_b[2] = {K, N}, shape_c[2] = {M, N};
  eor_protocol_tensor(0, "int32", shape_c, 2, c, sizeof(c));
  eor_protocol_tensor(1, "int8", shape_a, 2, a, sizeof(a));
  eor_protocol_tensor(2, "int8", shape_b, 2, b, sizeof(b));
  return sum == EXPECTED_SUM ? 0 : 1;
}
