/* int16 dot products with exact int64 sums: the inner loop of the CONV patch path (em_conv.c)
   and the U85 MatMul (em85_matmul.c). */
#include "em_internal.h"

void em_dot16(const int16_t *a, const int16_t *rows, int n, int count, int chunk, int64_t *sums) {
    int start, k, r;
    for (start = 0; start < n; start += chunk) {
        const int len = n - start < chunk ? n - start : chunk;
        const int16_t *as = a + start, *r0 = rows + start;
        if (count == EM_DOT_ROWS) {
            const int16_t *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
            int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (k = 0; k < len; k++) {
                int32_t x = as[k];
                s0 += x * r0[k]; s1 += x * r1[k]; s2 += x * r2[k]; s3 += x * r3[k];
            }
            sums[0] += s0; sums[1] += s1; sums[2] += s2; sums[3] += s3;
        } else {
            for (r = 0; r < count; r++) {
                const int16_t *rr = r0 + (size_t)r * n;
                int32_t s0 = 0;
                for (k = 0; k < len; k++) s0 += (int32_t)as[k] * rr[k];
                sums[r] += s0;
            }
        }
    }
}
