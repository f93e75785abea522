/* The insert benchmark: the classic run and its variants. */
#ifndef IIBENCH_RUN_H
#define IIBENCH_RUN_H

#include "options.h"

/* Runs it and returns the process exit status (0, 1 or 2). */
int run_insert_benchmark(int argc, char **argv, const struct run_options *o);

#endif
