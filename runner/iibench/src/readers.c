#include "readers.h"

#include "clock.h"
#include "runstate.h"
#include "schema.h"
#include "textutil.h"

#define INTERRUPT_RETRY_S 0.05

static atomic_bool writers_done;

static bool should_stop(void)
{
	return atomic_load(&writers_done) || stop_requested();
}

static int run_one(struct reader *r, struct textbuf *sql, uint64_t i)
{
	enum db_kind dialect = r->conn->backend->kind;
	uint64_t rows;
	sql->len = 0;
	if (r->kind == READER_SECONDARY_QUERIES)
		/* Round-robin over the three indexes, from random start points. */
		sql_secondary_query(sql, dialect, (unsigned)(i % SECONDARY_QUERY_KINDS),
				    stream_value(r->stream, i));
	else
		sql_range_scan(sql, dialect);
	return r->conn->backend->query(r->conn, sql->data, &rows);
}

/* Seed 004's pause between scans, cut short when the run ends. */
static void pause_between_scans(unsigned ms)
{
	double until = clock_now() + ms / 1000.0;
	while (!should_stop() && clock_now() < until)
		clock_sleep_until(clock_now() + INTERRUPT_RETRY_S < until ? clock_now() + INTERRUPT_RETRY_S
									 : until);
}

void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct textbuf sql = {0};
	for (uint64_t i = 0; !should_stop(); i++) {
		if (run_one(r, &sql, i) != 0) {
			/* An error after the stop is our own interrupt. */
			if (!should_stop())
				run_fail(r->conn->error);
			break;
		}
		atomic_fetch_add(&r->progress->queries, 1);
		if (r->kind == READER_RANGE_SCAN)
			pause_between_scans(r->pause_ms);
	}
	textbuf_free(&sql);
	atomic_store(&r->finished, true);
	return NULL;
}

void readers_stop(struct reader *readers, size_t count)
{
	atomic_store(&writers_done, true);
	for (size_t i = 0; i < count; i++) {
		struct reader *r = &readers[i];
		if (!r->started)
			continue;
		/* A query may start just after an interrupt: interrupt again until
		 * the thread has noticed the flag. */
		while (!atomic_load(&r->finished)) {
			r->conn->backend->interrupt(r->conn);
			double until = clock_now() + INTERRUPT_RETRY_S;
			while (!atomic_load(&r->finished) && clock_now() < until) {
				struct timespec ts = {0, 1000000};
				nanosleep(&ts, NULL);
			}
		}
		pthread_join(r->thread, NULL);
	}
}
