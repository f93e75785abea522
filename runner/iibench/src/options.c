#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "textutil.h"

/* Upper bounds that keep the arithmetic and the memory of one batch sane. */
#define MAX_THREADS 256
#define MAX_BATCH_ROWS 1000000
#define MAX_LOAD_KEYS 32
#define MAX_ROW_LENGTH 65000

static const char run_help[] =
"usage: iibench [options]                 the indexed-insertion benchmark (2008 contest)\n"
"       iibench loadgen --keys K --row-length L --rows N --out DIR [--seed S]\n"
"       iibench load --keys K --row-length L --rows N [--db URL] [--engine E] [--out DIR]\n"
"\n"
"Inserts rows into the table mypurchases while its three secondary indexes\n"
"(marketsegment, registersegment, pdc) are maintained. The table is DROPPED and\n"
"re-created at start: point --db at a scratch database.\n"
"\n"
"Target:\n"
"  --db URL                sqlite:///relative.db, sqlite:////absolute/path.db,\n"
"                          mysql://user:pass@host:port/db (MySQL and MariaDB),\n"
"                          postgresql://user:pass@host:port/db\n"
"                          (default " DEFAULT_DB_URL ")\n"
"  --engine NAME           MySQL storage engine (default InnoDB; e.g. BLACKHOLE)\n"
"\n"
"The classic run:\n"
"  --rows N                rows to insert in total (default 1000000000)\n"
"  --rows-per-commit N     rows per transaction (default 1000)\n"
"  --rows-per-insert N     rows per INSERT statement, at most --rows-per-commit\n"
"                          (default 1000; the contest allows at most 1000)\n"
"  --report-every N        a report line every N rows (default 1000000)\n"
"  --max-rate R            throttle to R rows/s over all writers (default 0: no limit)\n"
"  --seed S                data seed: the same seed gives the same rows (default 42)\n"
"  --start-time T          dateandtime of the first row, YYYY-MM-DDTHH:MM:SS\n"
"                          (default " DEFAULT_START_TIME "); +1 s every 100000 rows\n"
"  --resume                continue the existing table (an interrupted run with\n"
"                          the same options): rows, pseudo-clock and report cadence\n"
"                          go on from the rows it holds; nothing is dropped\n"
"  --resume-seconds S      the seconds the interrupted run had reached: its curve's\n"
"                          clock continues from there (default 0)\n"
"\n"
"Other workloads:\n"
"  --delete-after N        FIFO: once N rows are in, every committed batch also\n"
"                          deletes as many of the oldest rows (by primary key)\n"
"  --query-threads N       N connections querying the secondary indexes while\n"
"                          inserting (default 0)\n"
"  --pk KIND               primary key: autoinc (default, the classic table),\n"
"                          uuid-char (CHAR(36) random type-4 UUID) or uuid-ordered\n"
"                          (BINARY(16) re-ordered type-1 UUID); the UUID kinds make\n"
"                          the three secondary indexes UNIQUE (seed 004)\n"
"  --writers N             N connections inserting concurrently (default 1)\n"
"  --readers N             N connections running a full primary-key range scan\n"
"                          in a loop (default 0)\n"
"  --reader-pause-ms MS    pause of a reader between scans (default 100)\n"
"\n"
"Cost columns (latency, CPU, device I/O, size: FORMAT.md):\n"
"  --server-pid PID        the server's process, when it cannot be found from the\n"
"                          connection (it is for a local MariaDB/MySQL pid file or\n"
"                          PostgreSQL backend)\n"
"  --no-cost               measure nothing: every cost column prints '-'\n"
"\n"
"  --help                  this text\n"
"  --version               version and the backends this build supports\n"
"\n"
"Output: the self-describing format of FORMAT.md (header, one line per report,\n"
"summary), flushed line by line. Exit status: 0 when completed or stopped by\n"
"SIGTERM/SIGINT (the run stops after its current batch and prints a last report\n"
"and '# summary status=stopped'), 1 when an SQL error ends the run\n"
"('# summary status=failed error=...'), 2 for bad options or when the database\n"
"cannot be reached.\n"
"\n"
"Bulk loading (seed 003):\n"
"  loadgen                 writes DIR/load_table.data ('|'-separated: K random\n"
"                          8-byte keys, then a text pad up to the row length) and\n"
"                          the CREATE TABLE: DIR/load_table.sql (MySQL),\n"
"                          load_table.postgresql.sql, load_table.sqlite.sql\n"
"  load                    generates the same data (into --out or a temporary\n"
"                          directory), creates load_table with its keys in place and\n"
"                          times LOAD DATA LOCAL INFILE / COPY / one SQLite\n"
"                          transaction; prints rows/s, key-value pairs/s and MB/s\n"
"  --keys K                keys per row, 1..32: val0 is the primary key, val1..\n"
"                          have secondary indexes valkey1..\n"
"  --row-length L          bytes per row including the 8-byte keys (> 8*K)\n"
"  --out DIR               where the files go (loadgen: required; load: kept there,\n"
"                          else written to a temporary directory and removed)\n"
"  --rows N, --seed S, --db URL, --engine NAME: as above\n"
"\n"
"See README.md for the schemas per backend and --pk.\n";

static void print_version(void)
{
	printf("iibench-c version=%s format=%d backends=%s\n", IIBENCH_VERSION, IIBENCH_FORMAT,
	       backends_built());
}

__attribute__((format(printf, 1, 2)))
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("iibench: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\nTry 'iibench --help' for more information.\n", stderr);
	va_end(ap);
}

static int parse_u64(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (text[0] < '0' || text[0] > '9') {
		fprintf(stderr, "iibench: error: --%s expects a number, got '%s'\n", name, text);
		return -1;
	}
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "iibench: error: --%s expects a whole number from %llu to %llu, got '%s'\n",
			name, (unsigned long long)min, (unsigned long long)max, text);
		return -1;
	}
	*out = v;
	return 0;
}

/* A duration in seconds, decimals allowed, not negative, finite. */
static int parse_seconds(const char *name, const char *text, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end != '\0' || !(v >= 0 && v < 1e12)) {
		fprintf(stderr, "iibench: error: --%s expects seconds (0 or more), got '%s'\n", name, text);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_uint(const char *name, const char *text, unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	if (parse_u64(name, text, min, max, &v) != 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* The engine name is spliced into ENGINE=...: letters, digits and '_' only. */
static int parse_engine(const char *text, char out[ENGINE_NAME_MAX])
{
	size_t n = strlen(text);
	if (n == 0 || n >= ENGINE_NAME_MAX || strspn(text, "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n) {
		fprintf(stderr, "iibench: error: --engine expects a storage engine name such as "
				"InnoDB, got '%s'\n", text);
		return -1;
	}
	memcpy(out, text, n + 1);
	return 0;
}

static int parse_pk(const char *text, enum pk_kind *out)
{
	static const enum pk_kind kinds[] = {PK_AUTOINC, PK_UUID_CHAR, PK_UUID_ORDERED};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(text, pk_kind_name(kinds[i])) == 0) {
			*out = kinds[i];
			return 0;
		}
	}
	fprintf(stderr, "iibench: error: --pk expects autoinc, uuid-char or uuid-ordered, got '%s'\n",
		text);
	return -1;
}

static int parse_start_time(const char *text, struct run_options *o)
{
	if (parse_datetime(text, &o->start_time) != 0) {
		fprintf(stderr, "iibench: error: --start-time expects YYYY-MM-DDTHH:MM:SS, got '%s'\n",
			text);
		return -1;
	}
	char dt[DATETIME_TEXT_LEN + 1];
	format_datetime(o->start_time, dt);
	dt[10] = 'T'; /* printed without a space: param values never contain one */
	snprintf(o->start_time_text, sizeof o->start_time_text, "%s", dt);
	return 0;
}

enum run_option_id {
	OPT_DB = 1000, OPT_ROWS, OPT_ROWS_PER_COMMIT, OPT_ROWS_PER_INSERT, OPT_REPORT_EVERY,
	OPT_MAX_RATE, OPT_SEED, OPT_ENGINE, OPT_PK, OPT_WRITERS, OPT_READERS,
	OPT_READER_PAUSE_MS, OPT_QUERY_THREADS, OPT_DELETE_AFTER, OPT_START_TIME,
	OPT_RESUME, OPT_RESUME_SECONDS,
	OPT_KEYS, OPT_ROW_LENGTH, OPT_OUT, OPT_HELP, OPT_VERSION, OPT_SERVER_PID, OPT_NO_COST,
};

static const struct option run_long_options[] = {
	{"db", required_argument, NULL, OPT_DB},
	{"rows", required_argument, NULL, OPT_ROWS},
	{"rows-per-commit", required_argument, NULL, OPT_ROWS_PER_COMMIT},
	{"rows-per-insert", required_argument, NULL, OPT_ROWS_PER_INSERT},
	{"report-every", required_argument, NULL, OPT_REPORT_EVERY},
	{"max-rate", required_argument, NULL, OPT_MAX_RATE},
	{"seed", required_argument, NULL, OPT_SEED},
	{"engine", required_argument, NULL, OPT_ENGINE},
	{"pk", required_argument, NULL, OPT_PK},
	{"writers", required_argument, NULL, OPT_WRITERS},
	{"readers", required_argument, NULL, OPT_READERS},
	{"reader-pause-ms", required_argument, NULL, OPT_READER_PAUSE_MS},
	{"query-threads", required_argument, NULL, OPT_QUERY_THREADS},
	{"delete-after", required_argument, NULL, OPT_DELETE_AFTER},
	{"start-time", required_argument, NULL, OPT_START_TIME},
	{"server-pid", required_argument, NULL, OPT_SERVER_PID},
	{"no-cost", no_argument, NULL, OPT_NO_COST},
	{"resume", no_argument, NULL, OPT_RESUME},
	{"resume-seconds", required_argument, NULL, OPT_RESUME_SECONDS},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static void run_defaults(struct run_options *o)
{
	memset(o, 0, sizeof *o);
	o->db_url = DEFAULT_DB_URL;
	o->rows = 1000000000;
	o->rows_per_commit = 1000;
	o->rows_per_insert = 1000;
	o->report_every = 1000000;
	o->seed = 42;
	strcpy(o->engine, "InnoDB");
	o->pk = PK_AUTOINC;
	o->writers = 1;
	o->reader_pause_ms = 100;
	parse_start_time(DEFAULT_START_TIME, o);
}

static int apply_run_option(int id, const char *arg, struct run_options *o)
{
	switch (id) {
	case OPT_DB: o->db_url = arg; return 0;
	case OPT_ROWS: return parse_u64("rows", arg, 1, UINT64_C(1) << 53, &o->rows);
	case OPT_ROWS_PER_COMMIT:
		return parse_u64("rows-per-commit", arg, 1, MAX_BATCH_ROWS, &o->rows_per_commit);
	case OPT_ROWS_PER_INSERT:
		return parse_u64("rows-per-insert", arg, 1, MAX_BATCH_ROWS, &o->rows_per_insert);
	case OPT_REPORT_EVERY: return parse_u64("report-every", arg, 1, UINT64_C(1) << 53, &o->report_every);
	case OPT_MAX_RATE: return parse_u64("max-rate", arg, 0, 1000000000, &o->max_rate);
	case OPT_SEED: return parse_u64("seed", arg, 0, UINT64_MAX, &o->seed);
	case OPT_ENGINE: return parse_engine(arg, o->engine);
	case OPT_PK: return parse_pk(arg, &o->pk);
	case OPT_WRITERS: return parse_uint("writers", arg, 1, MAX_THREADS, &o->writers);
	case OPT_READERS: return parse_uint("readers", arg, 0, MAX_THREADS, &o->readers);
	case OPT_READER_PAUSE_MS:
		return parse_uint("reader-pause-ms", arg, 0, 3600000, &o->reader_pause_ms);
	case OPT_QUERY_THREADS: return parse_uint("query-threads", arg, 0, MAX_THREADS, &o->query_threads);
	case OPT_DELETE_AFTER: return parse_u64("delete-after", arg, 0, UINT64_C(1) << 53, &o->delete_after);
	case OPT_START_TIME: return parse_start_time(arg, o);
	case OPT_NO_COST: o->no_cost = true; return 0;
	case OPT_SERVER_PID: {
		uint64_t pid;
		if (parse_u64("server-pid", arg, 1, 4194304, &pid) != 0)
			return -1;
		o->server_pid = (long)pid;
		return 0;
	}
	case OPT_RESUME: o->resume = true; return 0;
	case OPT_RESUME_SECONDS: return parse_seconds("resume-seconds", arg, &o->resume_seconds);
	}
	return -1;
}

#define HELP_HINT "Try 'iibench --help' for more information.\n"

static int check_run_options(const struct run_options *o)
{
	if (o->rows_per_insert > o->rows_per_commit) {
		fprintf(stderr, "iibench: error: --rows-per-insert (%llu) cannot exceed "
				"--rows-per-commit (%llu): an INSERT never spans two commits\n" HELP_HINT,
			(unsigned long long)o->rows_per_insert, (unsigned long long)o->rows_per_commit);
		return -1;
	}
	if (o->resume_seconds > 0 && !o->resume) {
		fputs("iibench: error: --resume-seconds goes with --resume\n" HELP_HINT, stderr);
		return -1;
	}
	if (o->delete_after && o->pk == PK_UUID_CHAR) {
		fputs("iibench: error: --delete-after needs a primary key in insertion order "
		      "(--pk autoinc or uuid-ordered): random UUIDs have no 'oldest' rows\n" HELP_HINT,
		      stderr);
		return -1;
	}
	return 0;
}

/* getopt_long with our own messages; returns -1 on a bad option. */
static int next_option(int argc, char **argv, const struct option *longopts, int *id)
{
	int index = 0;
	*id = getopt_long(argc, argv, "", longopts, &index);
	if (*id == '?' || *id == ':') {
		/* getopt_long sets optopt to the option's id when its value is
		 * missing, and to 0 for an option it does not know. */
		const char *bad = argv[optind - 1];
		if (optopt)
			usage_error("option '%s' needs a value", bad);
		else
			usage_error("unknown option '%s'", bad);
		return -1;
	}
	return 0;
}

enum parse_result parse_run_options(int argc, char **argv, struct run_options *out)
{
	run_defaults(out);
	opterr = 0;
	optind = 1;
	for (;;) {
		int id;
		if (next_option(argc, argv, run_long_options, &id) != 0)
			return PARSE_ERROR;
		if (id == -1)
			break;
		if (id == OPT_HELP) {
			fputs(run_help, stdout);
			return PARSE_EXIT_OK;
		}
		if (id == OPT_VERSION) {
			print_version();
			return PARSE_EXIT_OK;
		}
		if (apply_run_option(id, optarg, out) != 0) {
			fputs("Try 'iibench --help' for more information.\n", stderr);
			return PARSE_ERROR;
		}
	}
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		return PARSE_ERROR;
	}
	return check_run_options(out) == 0 ? PARSE_OK : PARSE_ERROR;
}

static const struct option load_long_options[] = {
	{"db", required_argument, NULL, OPT_DB},
	{"engine", required_argument, NULL, OPT_ENGINE},
	{"keys", required_argument, NULL, OPT_KEYS},
	{"row-length", required_argument, NULL, OPT_ROW_LENGTH},
	{"rows", required_argument, NULL, OPT_ROWS},
	{"seed", required_argument, NULL, OPT_SEED},
	{"out", required_argument, NULL, OPT_OUT},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static int apply_load_option(int id, const char *arg, bool is_load, struct load_options *o)
{
	switch (id) {
	case OPT_DB:
		if (!is_load) {
			usage_error("'%s' takes no --db: it only writes files", "loadgen");
			return -1;
		}
		o->db_url = arg;
		return 0;
	case OPT_ENGINE: return parse_engine(arg, o->engine);
	case OPT_KEYS: return parse_uint("keys", arg, 1, MAX_LOAD_KEYS, &o->keys);
	case OPT_ROW_LENGTH: return parse_uint("row-length", arg, 9, MAX_ROW_LENGTH, &o->row_length);
	case OPT_ROWS: return parse_u64("rows", arg, 1, UINT64_C(1) << 53, &o->rows);
	case OPT_SEED: return parse_u64("seed", arg, 0, UINT64_MAX, &o->seed);
	case OPT_OUT: o->out_dir = arg; return 0;
	}
	return -1;
}

static int check_load_options(const struct load_options *o, bool is_load)
{
	const char *mode = is_load ? "load" : "loadgen";
	if (!o->keys || !o->row_length || !o->rows || (!is_load && !o->out_dir)) {
		fprintf(stderr, "iibench: error: %s needs --keys, --row-length, --rows%s\n" HELP_HINT,
			mode, is_load ? "" : " and --out");
		return -1;
	}
	if (o->row_length <= 8 * o->keys) {
		fprintf(stderr, "iibench: error: --row-length (%u) must exceed 8 bytes per key "
				"(%u keys: %u bytes) to leave room for the text pad\n" HELP_HINT,
			o->row_length, o->keys, 8 * o->keys);
		return -1;
	}
	return 0;
}

enum parse_result parse_load_options(int argc, char **argv, bool is_load, struct load_options *out)
{
	memset(out, 0, sizeof *out);
	out->db_url = is_load ? DEFAULT_DB_URL : NULL;
	out->seed = 42;
	strcpy(out->engine, "InnoDB");
	opterr = 0;
	optind = 1;
	for (;;) {
		int id;
		if (next_option(argc, argv, load_long_options, &id) != 0)
			return PARSE_ERROR;
		if (id == -1)
			break;
		if (id == OPT_HELP) {
			fputs(run_help, stdout);
			return PARSE_EXIT_OK;
		}
		if (apply_load_option(id, optarg, is_load, out) != 0) {
			fputs("Try 'iibench --help' for more information.\n", stderr);
			return PARSE_ERROR;
		}
	}
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		return PARSE_ERROR;
	}
	return check_load_options(out, is_load) == 0 ? PARSE_OK : PARSE_ERROR;
}
