/* Platform checks: .data/.bss initialisation, C++ constructors, FPU, MVE, CRC-32, heap,
 * semihosting file I/O. Each reports a check record; returns the number that failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "selftest.h"

#if defined(__ARM_FEATURE_MVE) && __ARM_FEATURE_MVE
#include <arm_mve.h>
#endif

static volatile uint32_t initialised = 0x1234ABCDu;
static volatile uint32_t zeroed[16];

static int check(const char *name, int64_t got, int64_t expected) {
  eor_protocol_check(name, got == expected, got, expected);
  return got == expected ? 0 : 1;
}

static int64_t fpu_result(void) {
  volatile float x = 2.0f;
  return (int64_t)lrintf(sqrtf(x) * 1000000.0f); /* 1414214 */
}

static int64_t mve_result(void) {
#if defined(__ARM_FEATURE_MVE) && __ARM_FEATURE_MVE
  static const int32_t left[4] = {1, 2, 3, 4}, right[4] = {5, 6, 7, 8};
  return vaddvq_s32(vmulq_s32(vld1q_s32(left), vld1q_s32(right))); /* 70 */
#else
  return 70;
#endif
}

static int64_t heap_roundtrip(void) {
  unsigned char *block = malloc(4096);
  if (!block) return -1;
  memset(block, 0x5A, 4096);
  int64_t sum = 0;
  for (int i = 0; i < 4096; ++i) sum += block[i];
  free(block);
  return sum; /* 4096 * 0x5A */
}

static int64_t semihosting_file_roundtrip(void) {
  static const char name[] = "selftest-semihosting.txt";
  static const char text[] = "ethosu-orchestrator selftest\n";
  char back[sizeof(text)] = {0};
  int handle = eor_semihosting_open(name, 4 /* "w" */);
  if (handle < 0) return -1;
  int unwritten = eor_semihosting_write(handle, text, sizeof(text) - 1);
  eor_semihosting_close(handle);
  handle = eor_semihosting_open(name, 0 /* "r" */);
  if (handle < 0 || unwritten) return -2;
  const long length = eor_semihosting_flen(handle);
  const int unread = eor_semihosting_read(handle, back, sizeof(text) - 1);
  eor_semihosting_close(handle);
  eor_semihosting_remove(name);
  if (unread || memcmp(back, text, sizeof(text) - 1) != 0) return -3;
  return length;
}

int selftest_run_checks(void) {
  int zero_sum = 0;
  for (unsigned i = 0; i < sizeof(zeroed) / sizeof(zeroed[0]); ++i) zero_sum += (int)zeroed[i];
  int failed = 0;
  failed += check("data_init", initialised, 0x1234ABCD);
  failed += check("bss_zero", zero_sum, 0);
  failed += check("cxx_constructor", selftest_cxx_constructed(), 1);
  failed += check("fpu_sqrt", fpu_result(), 1414214);
  failed += check("mve_dot", mve_result(), 70);
  failed += check("crc32", eor_crc32(0, "123456789", 9), 0xCBF43926);
  failed += check("heap", heap_roundtrip(), 4096 * 0x5A);
  failed += check("semihosting_file", semihosting_file_roundtrip(), 29);
  return failed;
}
