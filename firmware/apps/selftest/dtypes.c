/* One small tensor of every protocol dtype with edge values, so the host can check that
 * the encoding is exact (bit patterns, signed zero, infinities, NaN, extremes). */
#include <math.h>
#include <stdint.h>

#include "eor/protocol.h"
#include "selftest.h"

#define EMIT(index, dtype, array)                                                      \
  do {                                                                                 \
    const int32_t shape[1] = {(int32_t)(sizeof(array) / sizeof(array[0]))};            \
    eor_protocol_tensor((index), (dtype), shape, 1, (array), sizeof(array));           \
  } while (0)

void selftest_emit_dtype_samples(unsigned first) {
  static const int8_t i8[] = {-128, -1, 0, 1, 127};
  static const uint8_t u8[] = {0, 1, 128, 255};
  static const int16_t i16[] = {-32768, -1, 0, 32767};
  static const uint16_t u16[] = {0, 1, 65535};
  static const int32_t i32[] = {INT32_MIN, -1, 0, INT32_MAX};
  static const uint32_t u32[] = {0, 1, UINT32_MAX};
  static const int64_t i64[] = {INT64_MIN, -1, 0, INT64_MAX};
  static const uint64_t u64[] = {0, 1, UINT64_MAX};
  static const uint16_t f16_bits[] = {0x3C00, 0x8000, 0x7C00, 0x7E00, 0x0001}; /* 1,-0,inf,nan,min */
  static const uint16_t bf16_bits[] = {0x3F80, 0xBF80, 0x7F80, 0x0001};       /* 1,-1,inf,tiny */
  const float f32[] = {1.5f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, 3.4028235e38f};
  const double f64[] = {0.1, -0.0, INFINITY, NAN, 4.9e-324, 1.7976931348623157e308};
  static const uint8_t flags[] = {1, 0, 1};
  const int32_t scalar_shape[1] = {0};
  static const int32_t scalar = 42;

  EMIT(first + 0, "int8", i8);
  EMIT(first + 1, "uint8", u8);
  EMIT(first + 2, "int16", i16);
  EMIT(first + 3, "uint16", u16);
  EMIT(first + 4, "int32", i32);
  EMIT(first + 5, "uint32", u32);
  EMIT(first + 6, "int64", i64);
  EMIT(first + 7, "uint64", u64);
  EMIT(first + 8, "float16", f16_bits);
  EMIT(first + 9, "bfloat16", bf16_bits);
  EMIT(first + 10, "float32", f32);
  EMIT(first + 11, "float64", f64);
  EMIT(first + 12, "bool", flags);
  eor_protocol_tensor(first + 13, "int32", scalar_shape, 0, &scalar, sizeof(scalar));
}
