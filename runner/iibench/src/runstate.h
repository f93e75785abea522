/* Process-wide run state: stop requests (signals) and the first failure. */
#ifndef IIBENCH_RUNSTATE_H
#define IIBENCH_RUNSTATE_H

#include <stdbool.h>

/* Installs SIGTERM/SIGINT handlers that ask every thread to stop after its
 * current batch, so the run can print a last report and a "stopped" summary. */
void runstate_install_signal_handlers(void);

/* True once a signal arrived or any thread failed. */
bool stop_requested(void);

/* The signal that stopped the run (0 if none). */
int stop_signal(void);

/* Records the first failure (later ones are consequences of it) and asks
 * every thread to stop. `message` is the server's error text. */
void run_fail(const char *message);

bool run_failed(void);

/* The first failure's message, with newlines flattened (it ends a line of
 * the output format). */
const char *run_failure_message(void);

#endif
