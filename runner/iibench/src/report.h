/* The output format of FORMAT.md: header, report lines, trailer. Every line
 * is flushed as printed (the rerun worker streams stdout), and lines from
 * several threads never interleave. */
#ifndef IIBENCH_REPORT_H
#define IIBENCH_REPORT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cost.h"
#include "output.h"

/* "# iibench-c version=... format=1" and "# command ..." (password masked). */
void report_begin(int argc, char **argv);
/* report_comment (one "# ..." line) is output.h's. */
void report_param_u64(const char *name, uint64_t value);
void report_param_str(const char *name, const char *value);
void report_indexes(const char *table, const struct index_info *indexes, size_t count);
/* "# started <UTC time>" and the TAB-separated column header. */
void report_started(bool with_columns);
/* "# client_cpu ...": this process's CPU time (all threads) per row. */
void report_client_cpu(uint64_t rows);

/* Seconds as printed (milliseconds); rates are computed from this value so
 * that a reader recomputing rows/seconds gets the printed rate. */
double report_seconds(double seconds, uint64_t rows);

/* The running totals and the report lines they produce. */
struct progress {
	pthread_mutex_t lock;
	double t0;
	uint64_t report_every;
	uint64_t next_report;
	uint64_t rows;
	uint64_t deleted;
	atomic_uint_fast64_t queries;   /* bumped by query threads and readers */
	/* The previous report line, for interval rates. */
	uint64_t last_rows, last_deleted, last_queries;
	double last_seconds;
	bool printed_any;
	double last_commit_at;          /* the run's end once the writers stop */
	struct cost_probe *cost;        /* the cost columns of each report line */
	uint64_t queries_at_last_commit;
};

void progress_init(struct progress *p, uint64_t report_every, double t0);
/* Called by a writer after each commit; prints the report lines due. */
void progress_commit(struct progress *p, uint64_t rows, uint64_t deleted);
/* The last report line at t_end (with the query count of that moment),
 * unless one was printed at this row count. */
void progress_final_line(struct progress *p, double t_end, uint64_t queries);

enum run_status { RUN_COMPLETED, RUN_STOPPED, RUN_FAILED };

struct run_totals {
	enum run_status status;
	uint64_t rows, deleted, queries;
	double seconds;
	int signal;                 /* RUN_STOPPED */
	const char *error;          /* RUN_FAILED */
};

void report_summary(const struct run_totals *t);

#endif
