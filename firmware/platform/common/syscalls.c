/* newlib syscalls: stdout/stderr to UART0, a bounded heap, exit through semihosting. */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "eor/platform.h"

extern char __eor_heap_start[], __eor_heap_end[];
static char *heap_top = __eor_heap_start;

void *_sbrk(ptrdiff_t increment) {
  char *previous = heap_top;
  if (increment > __eor_heap_end - heap_top || increment < __eor_heap_start - heap_top) {
    errno = ENOMEM;
    return (void *)-1;
  }
  heap_top += increment;
  return previous;
}

size_t eor_heap_used(void) { return (size_t)(heap_top - __eor_heap_start); }
size_t eor_heap_size(void) { return (size_t)(__eor_heap_end - __eor_heap_start); }

int _write(int fd, const char *data, int length) {
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  eor_uart_write(data, (size_t)length);
  return length;
}

int _read(int fd, char *data, int length) {
  if (fd != 0) {
    errno = EBADF;
    return -1;
  }
  int count = 0;
  while (count < length) {
    int c = eor_uart_getc();
    if (c < 0) break;
    data[count++] = (char)c;
  }
  return count;
}

void _exit(int code) { eor_semihosting_exit(code); }

int _close(int fd) {
  (void)fd;
  return -1;
}

int _fstat(int fd, struct stat *status) {
  (void)fd;
  status->st_mode = S_IFCHR;
  return 0;
}

int _isatty(int fd) { return fd >= 0 && fd <= 2; }

int _lseek(int fd, int offset, int whence) {
  (void)fd;
  (void)offset;
  (void)whence;
  return 0;
}

int _kill(int pid, int signal) {
  (void)pid;
  (void)signal;
  errno = EINVAL;
  return -1;
}

int _getpid(void) { return 1; }
