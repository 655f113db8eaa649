/* The one place that picks an architecture's table (em_arch.h): U55 and U65 share a layout. */
#include "em_internal.h"

int em_arch_known(int arch) { return arch == 55 || arch == 65 || arch == 85; }

const em_arch *em_arch_for(int arch) { return arch == 85 ? &em85_arch : &em55_arch; }
