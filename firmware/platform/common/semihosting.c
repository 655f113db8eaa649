/* Arm semihosting (BKPT 0xAB): exit with a code, console and host file I/O. */
#include <string.h>

#include "eor/platform.h"

enum {
  SYS_OPEN = 0x01,
  SYS_CLOSE = 0x02,
  SYS_WRITE0 = 0x04,
  SYS_WRITE = 0x05,
  SYS_READ = 0x06,
  SYS_SEEK = 0x0A,
  SYS_FLEN = 0x0C,
  SYS_REMOVE = 0x0E,
  SYS_EXIT = 0x18,
  SYS_EXIT_EXTENDED = 0x20
};

#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static int semihosting_call(int operation, const void *argument) {
  register int r0 __asm("r0") = operation;
  register const void *r1 __asm("r1") = argument;
  __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void eor_semihosting_exit(int code) {
  const unsigned block[2] = {ADP_STOPPED_APPLICATION_EXIT, (unsigned)code};
  semihosting_call(SYS_EXIT_EXTENDED, block);
  /* Hosts without SYS_EXIT_EXTENDED: plain SYS_EXIT (status 0 or 1 only). */
  semihosting_call(SYS_EXIT, (const void *)(unsigned long)ADP_STOPPED_APPLICATION_EXIT);
  for (;;) {
  }
}

int eor_semihosting_open(const char *path, int mode) {
  const unsigned block[3] = {(unsigned)path, (unsigned)mode, (unsigned)strlen(path)};
  return semihosting_call(SYS_OPEN, block);
}

int eor_semihosting_close(int handle) {
  const unsigned block[1] = {(unsigned)handle};
  return semihosting_call(SYS_CLOSE, block);
}

int eor_semihosting_write(int handle, const void *data, size_t length) {
  const unsigned block[3] = {(unsigned)handle, (unsigned)data, (unsigned)length};
  return semihosting_call(SYS_WRITE, block);
}

int eor_semihosting_read(int handle, void *data, size_t length) {
  const unsigned block[3] = {(unsigned)handle, (unsigned)data, (unsigned)length};
  return semihosting_call(SYS_READ, block);
}

int eor_semihosting_seek(int handle, size_t position) {
  const unsigned block[2] = {(unsigned)handle, (unsigned)position};
  return semihosting_call(SYS_SEEK, block);
}

long eor_semihosting_flen(int handle) {
  const unsigned block[1] = {(unsigned)handle};
  return semihosting_call(SYS_FLEN, block);
}

int eor_semihosting_remove(const char *path) {
  const unsigned block[2] = {(unsigned)path, (unsigned)strlen(path)};
  return semihosting_call(SYS_REMOVE, block);
}

void eor_semihosting_write0(const char *text) { semihosting_call(SYS_WRITE0, text); }
