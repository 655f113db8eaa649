/* UART result protocol emitter (firmware/PROTOCOL.md). No printf, no heap. */
#include "eor/protocol.h"

#include <string.h>

static eor_writer_t protocol_writer;
static uint32_t records_since_begin;

void eor_protocol_set_writer(eor_writer_t writer) { protocol_writer = writer; }

uint32_t eor_crc32(uint32_t crc, const void *data, size_t length) {
  /* IEEE 802.3 CRC-32 (zlib's crc32), nibble table. */
  static const uint32_t table[16] = {
      0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
      0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
      0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
  const uint8_t *bytes = (const uint8_t *)data;
  crc = ~crc;
  for (size_t i = 0; i < length; ++i) {
    crc ^= bytes[i];
    crc = (crc >> 4) ^ table[crc & 0x0Fu];
    crc = (crc >> 4) ^ table[crc & 0x0Fu];
  }
  return ~crc;
}

static void append(eor_record_t *record, const char *text, size_t length) {
  if (record->length + length > EOR_RECORD_MAX - 24) { /* room for " truncated=1 *xxxxxxxx" */
    record->truncated = 1;
    return;
  }
  memcpy(record->text + record->length, text, length);
  record->length += length;
}

static void append_char(eor_record_t *record, char c) { append(record, &c, 1); }

static void append_key(eor_record_t *record, const char *key) {
  append_char(record, ' ');
  append(record, key, strlen(key));
  append_char(record, '=');
}

static int plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '_' || c == '-' || c == ',' || c == ':' || c == '/' || c == '+';
}

static const char hex_digits[] = "0123456789abcdef";

void eor_record_start(eor_record_t *record, const char *type) {
  record->length = 0;
  record->truncated = 0;
  append(record, type, strlen(type));
}

void eor_record_str(eor_record_t *record, const char *key, const char *value) {
  append_key(record, key);
  for (const char *c = value; *c; ++c) {
    if (plain(*c)) {
      append_char(record, *c);
    } else {
      const char escaped[3] = {'%', hex_digits[((unsigned char)*c) >> 4],
                               hex_digits[((unsigned char)*c) & 0xFu]};
      append(record, escaped, 3);
    }
  }
}

static void append_u64(eor_record_t *record, uint64_t value) {
  char digits[20];
  int count = 0;
  do {
    digits[count++] = (char)('0' + (int)(value % 10u));
    value /= 10u;
  } while (value);
  while (count) append_char(record, digits[--count]);
}

void eor_record_u64(eor_record_t *record, const char *key, uint64_t value) {
  append_key(record, key);
  append_u64(record, value);
}

void eor_record_i64(eor_record_t *record, const char *key, int64_t value) {
  append_key(record, key);
  if (value < 0) {
    append_char(record, '-');
    append_u64(record, (uint64_t)0 - (uint64_t)value);
  } else {
    append_u64(record, (uint64_t)value);
  }
}

void eor_record_hex32(eor_record_t *record, const char *key, uint32_t value) {
  append_key(record, key);
  append(record, "0x", 2);
  for (int shift = 28; shift >= 0; shift -= 4) append_char(record, hex_digits[(value >> shift) & 0xFu]);
}

void eor_record_hex_bytes(eor_record_t *record, const char *key, const uint8_t *data, size_t n) {
  append_key(record, key);
  for (size_t i = 0; i < n; ++i) {
    append_char(record, hex_digits[data[i] >> 4]);
    append_char(record, hex_digits[data[i] & 0xFu]);
  }
}

void eor_record_emit(eor_record_t *record) {
  static const char prefix[] = "@@EOR1 ";
  if (record->truncated) {
    static const char marker[] = " truncated=1";
    memcpy(record->text + record->length, marker, sizeof(marker) - 1);
    record->length += sizeof(marker) - 1;
  }
  const uint32_t crc = eor_crc32(0, record->text, record->length);
  char tail[12] = {' ', '*'};
  for (int i = 0; i < 8; ++i) tail[2 + i] = hex_digits[(crc >> (28 - 4 * i)) & 0xFu];
  tail[10] = '\n';
  if (protocol_writer) {
    protocol_writer(prefix, sizeof(prefix) - 1);
    protocol_writer(record->text, record->length);
    protocol_writer(tail, 11);
  }
  ++records_since_begin;
}

void eor_protocol_begin(const char *app, const char *platform, const uint8_t *build_id,
                        size_t build_id_length) {
  eor_record_t record;
  eor_record_start(&record, "begin");
  eor_record_u64(&record, "proto", EOR_PROTOCOL_VERSION);
  eor_record_str(&record, "app", app);
  eor_record_str(&record, "platform", platform);
  eor_record_hex_bytes(&record, "build", build_id, build_id_length);
  eor_record_emit(&record);
  records_since_begin = 0;
}

void eor_protocol_metric(const char *name, uint64_t value, const char *unit, const char *source) {
  eor_record_t record;
  eor_record_start(&record, "metric");
  eor_record_str(&record, "name", name);
  eor_record_u64(&record, "value", value);
  eor_record_str(&record, "unit", unit);
  if (source) eor_record_str(&record, "source", source);
  eor_record_emit(&record);
}

void eor_protocol_check(const char *name, int ok, int64_t got, int64_t expected) {
  eor_record_t record;
  eor_record_start(&record, "check");
  eor_record_str(&record, "name", name);
  eor_record_u64(&record, "ok", ok ? 1u : 0u);
  eor_record_i64(&record, "got", got);
  eor_record_i64(&record, "expected", expected);
  eor_record_emit(&record);
}

static void append_base64(eor_record_t *record, const uint8_t *data, size_t n) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t b0 = data[i];
    const uint32_t b1 = i + 1 < n ? data[i + 1] : 0u;
    const uint32_t b2 = i + 2 < n ? data[i + 2] : 0u;
    const uint32_t triple = (b0 << 16) | (b1 << 8) | b2;
    const char quad[4] = {alphabet[(triple >> 18) & 63u], alphabet[(triple >> 12) & 63u],
                          i + 1 < n ? alphabet[(triple >> 6) & 63u] : '=',
                          i + 2 < n ? alphabet[triple & 63u] : '='};
    append(record, quad, 4);
  }
}

/* Finish a payload's header record (nbytes, chunks, crc), then its data records: `type` with
 * `key`=`id` (or the number when id is NULL), seq, and up to EOR_TENSOR_CHUNK raw bytes each
 * (tdata for tensors, bdata for blobs). */
static void emit_payload(eor_record_t *header, const char *type, const char *key, const char *id,
                         uint64_t number, const uint8_t *bytes, size_t nbytes) {
  const size_t chunks = (nbytes + EOR_TENSOR_CHUNK - 1u) / EOR_TENSOR_CHUNK;
  eor_record_u64(header, "nbytes", nbytes);
  eor_record_u64(header, "chunks", chunks);
  eor_record_hex32(header, "crc", eor_crc32(0, bytes, nbytes));
  eor_record_emit(header);
  eor_record_t record;
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    const size_t offset = chunk * EOR_TENSOR_CHUNK;
    const size_t length = nbytes - offset < EOR_TENSOR_CHUNK ? nbytes - offset : EOR_TENSOR_CHUNK;
    eor_record_start(&record, type);
    if (id) {
      eor_record_str(&record, key, id);
    } else {
      eor_record_u64(&record, key, number);
    }
    eor_record_u64(&record, "seq", chunk);
    append_key(&record, "b64");
    append_base64(&record, bytes + offset, length);
    eor_record_emit(&record);
  }
}

void eor_protocol_tensor(unsigned index, const char *dtype, const int32_t *shape, unsigned rank,
                         const void *data, size_t nbytes) {
  eor_record_t record;
  eor_record_start(&record, "tensor");
  eor_record_u64(&record, "index", index);
  eor_record_str(&record, "dtype", dtype);
  append_key(&record, "shape");
  for (unsigned i = 0; i < rank; ++i) {
    if (i) append_char(&record, ',');
    append_u64(&record, (uint64_t)(uint32_t)shape[i]);
  }
  emit_payload(&record, "tdata", "index", NULL, index, (const uint8_t *)data, nbytes);
}

void eor_protocol_blob(const char *name, const void *data, size_t nbytes) {
  eor_record_t record;
  eor_record_start(&record, "blob");
  eor_record_str(&record, "name", name);
  emit_payload(&record, "bdata", "name", name, 0, (const uint8_t *)data, nbytes);
}

void eor_protocol_end(const char *status, int code) {
  eor_record_t record;
  eor_record_start(&record, "end");
  eor_record_str(&record, "status", status);
  eor_record_i64(&record, "code", code);
  eor_record_u64(&record, "records", records_since_begin);
  eor_record_emit(&record);
}
