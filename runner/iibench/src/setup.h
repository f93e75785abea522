/* How the run was set up, in the header (FORMAT.md, format 2): the machine
 * the benchmark ran on, its data device, and every server setting. */
#ifndef IIBENCH_SETUP_H
#define IIBENCH_SETUP_H

#include "backend.h"
#include "cost.h"

/* "# machine KEY VALUE" lines: CPU, memory and the device holding the data
 * directory the probe found (all "-" when the server is on another host). */
void setup_report_machine(const struct cost_probe *probe);

/* "# setting NAME default|changed|unknown VALUE" lines, one per variable. */
void setup_report_settings(const struct backend *backend, struct db_conn *control);

#endif
