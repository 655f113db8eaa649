/* CMSDK APB UART0 driver: polling TX/RX. TX must be enabled or QEMU prints nothing. */
#include "eor/platform.h"
#include "eor/regs.h"

#define UART_DATA     EOR_REG32(EOR_UART0_BASE + 0x00u)
#define UART_STATE    EOR_REG32(EOR_UART0_BASE + 0x04u)
#define UART_CTRL     EOR_REG32(EOR_UART0_BASE + 0x08u)
#define UART_BAUDDIV  EOR_REG32(EOR_UART0_BASE + 0x10u)

#define STATE_TX_FULL (1u << 0)
#define STATE_RX_FULL (1u << 1)
#define CTRL_TX_ENABLE (1u << 0)
#define CTRL_RX_ENABLE (1u << 1)

void eor_uart_init(void) {
  UART_BAUDDIV = 16u; /* smallest legal divider; simulators ignore the rate */
  UART_CTRL = CTRL_TX_ENABLE | CTRL_RX_ENABLE;
}

void eor_uart_putc(char c) {
  while (UART_STATE & STATE_TX_FULL) {
  }
  UART_DATA = (uint32_t)(unsigned char)c;
}

void eor_uart_write(const char *text, size_t length) {
  for (size_t i = 0; i < length; ++i) eor_uart_putc(text[i]);
}

int eor_uart_getc(void) {
  if (!(UART_STATE & STATE_RX_FULL)) return -1;
  return (int)(UART_DATA & 0xFFu);
}
