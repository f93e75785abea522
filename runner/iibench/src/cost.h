/* What a run costs, measured beside every report line (FORMAT.md, format 2):
 * INSERT latency percentiles, client and server CPU, the server's memory,
 * the data device's reads and writes, and the table's size on disk.
 *
 * The server's process and the data device are found from the connection
 * (or --server-pid); a quantity that cannot be measured is printed as "-". */
#ifndef IIBENCH_COST_H
#define IIBENCH_COST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "backend.h"
#include "latency.h"

/* The column names that follow the eight of format 1, TAB separated (format 3 added the
 * last one). */
#define COST_COLUMNS                                                                   \
	"latency_p50_ms\tlatency_p99_ms\tlatency_max_ms\tclient_cpu_s\tserver_cpu_s"    \
	"\tserver_rss_bytes\tread_bytes\twrite_bytes\tread_ops\twrite_ops\tdb_size_bytes" \
	"\tmachine_cpu_s"
#define COST_COLUMN_COUNT 12

/* The server's children whose /proc files stay open between reports (two descriptors each);
 * the others are read by path. */
#define COST_KEPT_CHILDREN 256

/* PostgreSQL's files of the table, its indexes and TOAST read by fstat at most; beyond, the
 * size query. */
#define COST_PG_FILES 64

/* Running totals read at one moment; `has_*` false = not measurable. */
struct cost_totals {
	double client_cpu_s;
	bool has_server_cpu, has_server_rss, has_disk, has_size, has_machine_cpu;
	double server_cpu_s;
	double machine_cpu_s;  /* every CPU's busy time */
	uint64_t server_rss_bytes;
	uint64_t read_bytes, write_bytes, read_ops, write_ops;
	uint64_t db_size_bytes;
};

/* A process whose /proc files are read at every report, kept open (-1: not open). */
struct server_process {
	pid_t pid;
	int stat_fd, statm_fd;
};

struct cost_probe {
	bool enabled;                  /* false with --no-cost: every column "-" */
	const struct backend *backend;
	struct db_conn *control;       /* idle during the run: the size query */
	struct server_process server;  /* pid 0: not on this host or not found */
	/* The server's children at the last report, with their files kept open. */
	struct server_process kept[COST_KEPT_CHILDREN];
	size_t nkept;
	bool server_forks;             /* false: the server's children are not looked for */
	int children_fd, machine_fd, disk_fd;
	int cgroup_fd;                 /* the root cgroup's cpu.stat, when it is the machine's */
	char cgroup_stat[4200];        /* its path; "" to read /proc/stat */
	int size_fd;                   /* the table's file, when its size is read from it */
	/* PostgreSQL: the relations' files (pg_relation_filepath, space separated) kept open,
	 * and their directory, whose mtime says when to look for files again. */
	bool pg_use_files, pg_dir_settled;
	char pg_relations[1024];
	int pg_dir_fd;
	struct timespec pg_dir_mtime;
	int pg_files[COST_PG_FILES];
	size_t npg_files;
	bool size_fixed;               /* BLACKHOLE: fixed_size for the whole run */
	uint64_t fixed_size;
	bool has_machine;              /* /proc/stat read, the server on this host */
	bool has_device;
	unsigned device_major, device_minor;
	char data_dir[4096];
	size_t size_query;             /* the size query that answered last */
	struct cost_totals last;
	struct latency_histogram latency;
	/* What measuring cost the client: CPU seconds of the report-time reads, and the
	 * statements timed at a per-statement cost calibrated at the start. */
	double report_cpu_s;
	double statement_cpu_s;
	atomic_uint_fast64_t statements;
};

/* Finds the server's process (server_pid > 0 overrides the lookup) and the
 * device holding the data directory. */
void cost_probe_init(struct cost_probe *probe, bool enabled, const struct backend *backend,
		     struct db_conn *control, const struct db_url *url, long server_pid);

/* Closes the files the probe kept open. */
void cost_probe_close(struct cost_probe *probe);

/* "# cost ..." header line: what was found (FORMAT.md). */
void cost_report_probe(const struct cost_probe *probe);

/* The first totals and an empty latency histogram, as the clock starts. */
void cost_probe_start(struct cost_probe *probe);

/* "# cost_overhead ...": what measuring cost the client, and its share of the client's
 * CPU time (FORMAT.md; `make bench` checks it against the pairs with and without). */
void cost_report_overhead(const struct cost_probe *probe);

/* Called by writers around every INSERT statement. */
void cost_record_statement(struct cost_probe *probe, double seconds);

/* The COST_COLUMN_COUNT cost columns of one report line, each preceded by a TAB, for
 * the interval since the previous call. Called by one thread at a time. */
void cost_format_columns(struct cost_probe *probe, char *out, size_t outlen);

#endif
