/* Emitter of the UART result protocol, version 1 (see firmware/PROTOCOL.md).
 * Every record is one line: "@@EOR1 <type> <key>=<value>... *<crc32 hex of type..value>". */
#ifndef EOR_PROTOCOL_H
#define EOR_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EOR_PROTOCOL_VERSION 1
#define EOR_RECORD_MAX 320
#define EOR_TENSOR_CHUNK 120 /* raw bytes per tdata line (160 base64 characters) */

typedef void (*eor_writer_t)(const char *text, size_t length);

typedef struct {
  char text[EOR_RECORD_MAX];
  size_t length;
  int truncated;
} eor_record_t;

void eor_protocol_set_writer(eor_writer_t writer);
uint32_t eor_crc32(uint32_t crc, const void *data, size_t length);

/* Build one record: start, add fields, emit. Values are percent-escaped as needed. */
void eor_record_start(eor_record_t *record, const char *type);
void eor_record_str(eor_record_t *record, const char *key, const char *value);
void eor_record_u64(eor_record_t *record, const char *key, uint64_t value);
void eor_record_i64(eor_record_t *record, const char *key, int64_t value);
void eor_record_hex32(eor_record_t *record, const char *key, uint32_t value);
void eor_record_hex_bytes(eor_record_t *record, const char *key, const uint8_t *data, size_t n);
void eor_record_emit(eor_record_t *record);

/* Whole records. */
void eor_protocol_begin(const char *app, const char *platform, const uint8_t *build_id,
                        size_t build_id_length);
void eor_protocol_metric(const char *name, uint64_t value, const char *unit, const char *source);
void eor_protocol_check(const char *name, int ok, int64_t got, int64_t expected);
/* dtype: int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 bfloat16 float32 float64
 * bool. data: nbytes raw little-endian bytes. */
void eor_protocol_tensor(unsigned index, const char *dtype, const int32_t *shape, unsigned rank,
                         const void *data, size_t nbytes);
/* An opaque byte payload (e.g. an ETDump) under a name: one blob header, then bdata chunks. */
void eor_protocol_blob(const char *name, const void *data, size_t nbytes);
void eor_protocol_end(const char *status, int code);

#ifdef __cplusplus
}
#endif

#endif
