// The runner without the event tracer: no tracer, nothing to report.
#include "runner_etdump.h"

executorch::runtime::EventTracer* runner_event_tracer() { return nullptr; }

void runner_etdump_report() {}
