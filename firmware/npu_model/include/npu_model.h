/* npu_model: an NPU model of the Arm Ethos-U55/U65/U85 NPU (command-stream level).
 *
 * Portable C99, no dynamic allocation: it runs a Vela command stream (the driver payload an
 * Ethos-U delegate hands to ethosu_invoke_v3) against the given memory regions, on the host
 * or on a Cortex-M. Anything it does not implement stops the run with a one-line message.
 */
#ifndef NPU_MODEL_H
#define NPU_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_MODEL_VERSION "0.3.0" /* 0.2: Ethos-U85; 0.3: U85 RESIZE, B64 feature maps, U85 observation */

/* The entry points are the only symbols a shared build exports (the rest is hidden, so calls
   inside the library bind directly). */
#if defined(__GNUC__)
#define NPU_MODEL_API __attribute__((visibility("default")))
#else
#define NPU_MODEL_API
#endif

typedef struct npu_model_npu { uint8_t arch; /* 55, 65 or 85 */ uint16_t macs; uint8_t cores; } npu_model_npu;
typedef struct npu_model_status { int code; char message[192]; } npu_model_status;

/* Runs one driver payload exactly as ethosu_invoke_v3 receives it (COP1 custom data: driver
   header + command stream). base_addr[i] is region i's address (a pointer value on the host or
   the target), base_addr_size[i] its size. Returns 0 on success; otherwise non-zero with
   status->message naming what is unimplemented or wrong (command, field value, data type; or
   arch/MAC mismatch between the payload and `npu`). */
NPU_MODEL_API int npu_model_invoke(const npu_model_npu *npu, const void *custom_data, size_t custom_data_size,
                        const uint64_t *base_addr, const size_t *base_addr_size, int num_base_addr,
                        npu_model_status *status);

/* Lists the command stream of a driver payload, one line per command:
   "<byte offset in the stream, hex> <command name> <param, hex> <data, hex or ->". Returns the
   number of commands, or -1 when the payload is malformed or `out` is too small. */
NPU_MODEL_API int npu_model_list(const void *custom_data, size_t custom_data_size, char *out, size_t out_size);

/* A feature map as an operation really reads or stores it: region (-1: not in memory, or not
   used by the operation), byte offset of tile 0, shape, element size, rows/columns in tile 0,
   NHCWB16 or NHWC, strides; chain: the U85 chain buffer it is passed in (CHAINED storage:
   nothing in memory; region -1), else -1; axes: for each stored axis (H, W, C) the
   operation's axis (0 H, 1 W, 2 C) it holds: {0, 1, 2} unless a U85 OFM transpose stored it
   permuted (the shape and strides are then the stored tensor's). */
typedef struct npu_model_fmap {
    int region; uint64_t offset; int height, width, depth, bytes, height0, width0, nhcwb16;
    int64_t stride_x, stride_y, stride_c;
    int chain; int axes[3];
} npu_model_fmap;

/* One NPU operation (NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE, U85 RESIZE) just run, for an observer: its
   index among the stream's operations, command, word offset in the stream, and its feature
   maps (IFM and IFM2 over tile 0: what it may read, region -1 for an operand it does not read;
   the OFM: what it stored). An NPU_OP_DMA_START is reported too, with index -1 and every
   feature map's region -1. */
typedef struct npu_model_operation {
    int index; uint32_t code; uint32_t word; const char *name;
    npu_model_fmap ofm, ifm, ifm2;
} npu_model_operation;
typedef int (*npu_model_observer)(const npu_model_operation *op, void *user);

/* Registers `observer` (NULL: none) for the following invokes: called after every NPU
   operation; a non-zero return stops the invoke there with NPU_MODEL_STOPPED (the memory
   then holds everything up to and including that operation). */
NPU_MODEL_API void npu_model_observe(npu_model_observer observer, void *user);

/* Status codes. */
#define NPU_MODEL_OK 0
#define NPU_MODEL_BAD_PAYLOAD 1     /* not a COP1 payload, truncated, bad driver action */
#define NPU_MODEL_CONFIG_MISMATCH 2 /* payload compiled for another arch / MAC count */
#define NPU_MODEL_UNSUPPORTED 3     /* a command, field value or data type not modelled */
#define NPU_MODEL_BAD_ADDRESS 4     /* an access outside its region */
#define NPU_MODEL_CAPACITY 5        /* a static buffer of the model is too small */
#define NPU_MODEL_STOPPED 6         /* the observer stopped the invoke after an operation */

#ifdef __cplusplus
}
#endif

#endif
