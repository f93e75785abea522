/* The inserting threads of the classic run (and of FIFO, --pk, --writers). */
#ifndef IIBENCH_WRITERS_H
#define IIBENCH_WRITERS_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend.h"
#include "datagen.h"
#include "options.h"
#include "report.h"

/* What all writers share. Rows are handed out in commit-sized blocks from
 * one counter, so the pseudo clock and --max-rate follow the global row
 * count, and every block's data is known from its first row index. */
struct insert_plan {
	const struct run_options *options;
	struct purchase_generator generator;
	atomic_uint_fast64_t next_row;
	struct progress *progress;
	double t0;
};

struct writer {
	pthread_t thread;
	struct db_conn *conn;
	struct insert_plan *plan;
};

void insert_plan_init(struct insert_plan *plan, const struct run_options *o,
		      struct progress *progress, double t0);

/* Thread body: inserts blocks until the rows run out, a stop is requested
 * or an error happens (recorded with run_fail). */
void *writer_main(void *arg);

/* FIFO (seed 002): rows to delete with the block [first, first+count) so
 * that the table never holds more than `fifo_rows` rows after its commit. */
uint64_t fifo_deletes_due(uint64_t first, uint64_t count, uint64_t fifo_rows);

#endif
