/* Layout accessors: the GNU build id note, the fixed model/input areas, stack use. */
#include <stdint.h>

#include "eor/platform.h"
#include "eor/protocol.h"

extern const uint32_t __eor_build_id_note[];
extern char __eor_model_area_start[], __eor_model_area_end[];
extern char __eor_input_area_start[], __eor_input_area_end[];
extern uint32_t __eor_stack_limit[], __eor_stack_top[];

#define STACK_PAINT 0xA5A5A5A5u

const uint8_t *eor_build_id(size_t *length) {
  /* Note layout: namesz, descsz, type, name ("GNU\0"), desc. */
  const uint32_t name_size = __eor_build_id_note[0];
  *length = __eor_build_id_note[1];
  return (const uint8_t *)&__eor_build_id_note[3] + ((name_size + 3u) & ~3u);
}

void *eor_model_area(size_t *size) {
  *size = (size_t)(__eor_model_area_end - __eor_model_area_start);
  return __eor_model_area_start;
}

void *eor_input_area(size_t *size) {
  *size = (size_t)(__eor_input_area_end - __eor_input_area_start);
  return __eor_input_area_start;
}

void eor_stack_paint(void) {
  uint32_t *sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t *word = __eor_stack_limit; word < sp - 16; ++word) *word = STACK_PAINT;
}

size_t eor_stack_size(void) { return (size_t)((char *)__eor_stack_top - (char *)__eor_stack_limit); }

size_t eor_stack_used(void) {
  const uint32_t *word = __eor_stack_limit;
  while (word < __eor_stack_top && *word == STACK_PAINT) ++word;
  return (size_t)((const char *)__eor_stack_top - (const char *)word);
}

void eor_begin(const char *app) {
  size_t length;
  const uint8_t *build_id = eor_build_id(&length);
  eor_protocol_begin(app, EOR_PLATFORM_NAME, build_id, length);
}
