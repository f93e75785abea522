/* Threads that read while the writers insert: --query-threads (seed 001's
 * query scalability) and --readers (seed 004's full primary-key scans). */
#ifndef IIBENCH_READERS_H
#define IIBENCH_READERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "backend.h"
#include "report.h"

enum reader_kind { READER_SECONDARY_QUERIES, READER_RANGE_SCAN };

struct reader {
	pthread_t thread;
	bool started;
	atomic_bool finished;
	struct db_conn *conn;
	enum reader_kind kind;
	unsigned index;
	uint64_t stream;          /* query parameters, per thread */
	unsigned pause_ms;        /* range scans only */
	struct progress *progress;
};

void *reader_main(void *arg);

/* Ends the readers once the writers are done: sets the stop flag, then
 * interrupts each connection until its thread has left its query. */
void readers_stop(struct reader *readers, size_t count);

#endif
