/* Internal state and helpers of the Ethos-U NPU model, one header per concern; every source
   includes this one: em_state.h (state, capacities, registers by name, messages), em_stream.h
   (observer, register file, payload, DMA), em_bits.h, em_fmap.h (feature maps), em_scale.h
   (scaling and rounding), em_weights.h (kernels, weight decoding and reuse), em_output.h
   (output stage and geometry), em85.h (Ethos-U85 only), em_pool.h (pooling), em_ops.h (the
   U55/U65 operations and what they share), em_arch.h (what differs between the layouts: one
   table per architecture the shared files call through). */
#ifndef EM_INTERNAL_H
#define EM_INTERNAL_H

#include "em_state.h"
#include "em_stream.h"
#include "em_bits.h"
#include "em_fmap.h"
#include "em_scale.h"
#include "em_weights.h"
#include "em_output.h"
#include "em85.h"
#include "em_pool.h"
#include "em_ops.h"
#include "em_arch.h"

#endif
