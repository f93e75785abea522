#include "writers.h"

#include <stdlib.h>

#include "clock.h"
#include "runstate.h"

void insert_plan_init(struct insert_plan *plan, const struct run_options *o,
		      struct progress *progress, double t0)
{
	plan->options = o;
	purchase_generator_init(&plan->generator, o->seed, o->start_time, o->pk);
	atomic_init(&plan->next_row, 0);
	plan->progress = progress;
	plan->t0 = t0;
}

uint64_t fifo_deletes_due(uint64_t first, uint64_t count, uint64_t fifo_rows)
{
	if (fifo_rows == 0)
		return 0;
	uint64_t from = first > fifo_rows ? first : fifo_rows;
	uint64_t to = first + count;
	return to > from ? to - from : 0;
}

/* --max-rate: a statement ending with row r (exclusive) may not be sent
 * before t0 + r / rate, so that no interval ever exceeds the rate. */
static void throttle(const struct insert_plan *plan, uint64_t end_row)
{
	uint64_t rate = plan->options->max_rate;
	if (rate && !stop_requested())
		clock_sleep_until(plan->t0 + (double)end_row / (double)rate);
}

static uint64_t statement_rows(const struct run_options *o, uint64_t done, uint64_t count)
{
	return count - done < o->rows_per_insert ? count - done : o->rows_per_insert;
}

static int insert_block(struct writer *w, struct purchase_row *rows, uint64_t first,
			uint64_t count)
{
	const struct run_options *o = w->plan->options;
	const struct backend *be = w->conn->backend;
	for (uint64_t done = 0; done < count; done += o->rows_per_insert) {
		uint64_t n = statement_rows(o, done, count);
		/* Another thread failed: leave this transaction uncommitted. */
		if (run_failed())
			return -1;
		if (done)
			throttle(w->plan, first + done + n);
		purchase_generator_fill(&w->plan->generator, first + done, rows, n);
		double sent = clock_now();
		if (be->insert_purchases(w->conn, rows, n) != 0)
			return -1;
		cost_record_statement(w->plan->progress->cost, clock_now() - sent);
	}
	return 0;
}

/* One transaction: the block's INSERTs, its FIFO delete, the commit. */
static int write_block(struct writer *w, struct purchase_row *rows, uint64_t first, uint64_t count)
{
	const struct backend *be = w->conn->backend;
	uint64_t due = fifo_deletes_due(first, count, w->plan->options->delete_after);
	uint64_t deleted = 0;
	/* Wait before BEGIN: no lock is held while throttled (SQLite's write
	 * lock would block every other writer). */
	throttle(w->plan, first + statement_rows(w->plan->options, 0, count));
	/* Stopped while waiting: nothing of this block was sent, drop it. */
	if (stop_requested())
		return run_failed() ? -1 : 0;
	if (be->begin(w->conn) != 0 || insert_block(w, rows, first, count) != 0
	    || (due && be->delete_oldest(w->conn, due, &deleted) != 0) || be->commit(w->conn) != 0)
		return -1;
	progress_commit(w->plan->progress, count, deleted);
	return 0;
}

void *writer_main(void *arg)
{
	struct writer *w = arg;
	const struct run_options *o = w->plan->options;
	struct purchase_row *rows = malloc(o->rows_per_insert * sizeof *rows);
	if (!rows) {
		run_fail("out of memory");
		return NULL;
	}
	/* The stop check comes before a block is claimed, so every claimed
	 * block is either committed or the run failed. */
	while (!stop_requested()) {
		uint64_t first = atomic_fetch_add(&w->plan->next_row, o->rows_per_commit);
		if (first >= o->rows)
			break;
		uint64_t count = o->rows - first < o->rows_per_commit ? o->rows - first
								   : o->rows_per_commit;
		if (write_block(w, rows, first, count) != 0) {
			if (!run_failed())
				run_fail(w->conn->error);
			break;
		}
	}
	free(rows);
	return NULL;
}
