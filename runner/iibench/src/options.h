/* Command-line options of the three modes: the insert run (the default),
 * `loadgen` and `load`. */
#ifndef IIBENCH_OPTIONS_H
#define IIBENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "datagen.h"

#define IIBENCH_VERSION "1.2.0"
#define IIBENCH_FORMAT 3
#define DEFAULT_DB_URL "sqlite:///iibench.db"
#define DEFAULT_START_TIME "2008-11-24T00:00:00"
#define ENGINE_NAME_MAX 64

struct run_options {
	const char *db_url;
	uint64_t rows;
	uint64_t rows_per_commit;
	uint64_t rows_per_insert;
	uint64_t report_every;
	uint64_t max_rate;        /* rows/s over all writers; 0 = unthrottled */
	uint64_t seed;
	uint64_t delete_after;    /* FIFO size; 0 = no deletes */
	char engine[ENGINE_NAME_MAX];
	enum pk_kind pk;
	unsigned writers;
	unsigned readers;
	unsigned reader_pause_ms;
	unsigned query_threads;
	bool resume;              /* continue the existing table instead of re-creating it */
	double resume_seconds;    /* where the interrupted run's clock stood */
	int64_t start_time;       /* seconds since the epoch */
	char start_time_text[32]; /* as printed: YYYY-MM-DDTHH:MM:SS */
	bool no_cost;             /* --no-cost: the cost columns all "-" */
	long server_pid;          /* --server-pid; 0: found from the connection */
};

struct load_options {
	const char *db_url;       /* NULL for loadgen */
	const char *out_dir;      /* NULL for load: a temporary directory */
	char engine[ENGINE_NAME_MAX];
	unsigned keys;
	unsigned row_length;
	uint64_t rows;
	uint64_t seed;
};

enum parse_result { PARSE_OK, PARSE_EXIT_OK, PARSE_ERROR };

/* Each prints --help or --version itself (PARSE_EXIT_OK) or a message and a
 * usage hint on stderr (PARSE_ERROR). */
enum parse_result parse_run_options(int argc, char **argv, struct run_options *out);
enum parse_result parse_load_options(int argc, char **argv, bool is_load, struct load_options *out);

#endif
