/* `iibench load`: seed 003's timed bulk load into a table whose keys are
 * in place before the first row. */
#ifndef IIBENCH_LOAD_H
#define IIBENCH_LOAD_H

#include "options.h"

/* Returns the process exit status (0, 1 or 2). */
int run_load_benchmark(int argc, char **argv, const struct load_options *o);

#endif
