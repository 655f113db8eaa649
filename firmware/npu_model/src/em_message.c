/* One-line messages without libc printf: a tiny formatter for %s %d %u %x (em_fail) and the
   text primitives the listing shares. */
#include <stdarg.h>

#include "em_internal.h"

size_t em_put_str(char *out, size_t at, size_t cap, const char *text) {
    while (*text && at + 1 < cap) out[at++] = *text++;
    return at;
}

static size_t put_num(char *out, size_t at, size_t cap, uint32_t value, int negative, unsigned base) {
    char digits[12];
    int n = 0;
    if (negative) at = em_put_str(out, at, cap, "-");
    if (base == 16) at = em_put_str(out, at, cap, "0x");
    do { digits[n++] = "0123456789abcdef"[value % base]; value /= base; } while (value);
    while (n && at + 1 < cap) out[at++] = digits[--n];
    return at;
}

size_t em_put_hex(char *out, size_t at, size_t cap, uint32_t value, int digits) {
    int i;
    for (i = digits - 1; i >= 0 && at + 1 < cap; i--) out[at++] = "0123456789abcdef"[(value >> (4 * i)) & 15u];
    return at;
}

int em_fail(em_state *s, int code, const char *fmt, ...) {
    char *out = s->status->message;
    size_t cap = sizeof(s->status->message), at = 0;
    va_list args;
    va_start(args, fmt);
    for (; *fmt && at + 1 < cap; fmt++) {
        if (*fmt != '%') { out[at++] = *fmt; continue; }
        fmt++;
        if (*fmt == 's') at = em_put_str(out, at, cap, va_arg(args, const char *));
        else if (*fmt == 'd') {
            int v = va_arg(args, int);
            at = put_num(out, at, cap, v < 0 ? (uint32_t)(-(int64_t)v) : (uint32_t)v, v < 0, 10);
        } else if (*fmt == 'u') at = put_num(out, at, cap, va_arg(args, unsigned), 0, 10);
        else if (*fmt == 'x') at = put_num(out, at, cap, va_arg(args, unsigned), 0, 16);
        else out[at++] = *fmt;
    }
    va_end(args);
    out[at] = '\0';
    s->status->code = code;
    return code;
}
