/* The runner's event tracer (invoke run --profile): an ExecuTorch ETDump generator when the
 * runtime was built with the devtools event tracer (runner_etdump.cpp), nothing otherwise
 * (runner_etdump_none.cpp). The ETDump goes back to the host as a protocol blob. */
#ifndef RUNNER_ETDUMP_H
#define RUNNER_ETDUMP_H

#include <executorch/runtime/core/event_tracer.h>

/* The tracer to give Program::load_method (nullptr without the event tracer). */
executorch::runtime::EventTracer* runner_event_tracer();

/* After the inferences: the ETDump as a `blob name=etdump` (and, with intermediate outputs,
 * the debug buffer as `blob name=debug_buffer`), plus their sizes as metrics. */
void runner_etdump_report();

#endif
