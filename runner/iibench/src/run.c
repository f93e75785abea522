#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "clock.h"
#include "readers.h"
#include "report.h"
#include "runstate.h"
#include "schema.h"
#include "setup.h"
#include "writers.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

/* Everything the run holds; freed by close_all. */
struct run {
	const struct run_options *options;
	const struct backend *backend;
	struct db_url url;
	struct db_conn *control;
	struct writer *writers;
	struct reader *readers;
	size_t reader_count;
	struct progress progress;
	struct insert_plan plan;
	struct cost_probe *cost;
	uint64_t resumed_rows;      /* --resume: the rows the table already held */
};

static void print_params(const struct run_options *o, enum db_kind kind)
{
	char masked[4096];
	report_param_str("mode", "insert");
	report_param_u64("rows", o->rows);
	report_param_u64("rows_per_commit", o->rows_per_commit);
	report_param_u64("rows_per_insert", o->rows_per_insert);
	report_param_u64("report_every", o->report_every);
	report_param_u64("max_rate", o->max_rate);
	report_param_u64("seed", o->seed);
	/* ENGINE= exists only in MySQL/MariaDB: elsewhere no engine was chosen. */
	if (kind == DB_MYSQL)
		report_param_str("engine", o->engine);
	report_param_str("pk", pk_kind_name(o->pk));
	report_param_u64("writers", o->writers);
	report_param_u64("readers", o->readers);
	report_param_u64("reader_pause_ms", o->reader_pause_ms);
	report_param_u64("query_threads", o->query_threads);
	report_param_u64("delete_after", o->delete_after);
	report_param_str("start_time", o->start_time_text);
	if (o->resume)
		report_param_str("resume", "yes");
	db_url_masked(o->db_url, masked, sizeof masked);
	report_param_str("db", masked);
}

/* A failure before the first row: the message on stderr, and a summary so
 * that a reader of stdout sees how the run ended. */
static int fail_setup(int exit_status, const char *message)
{
	char flat[DB_ERROR_MAX + 4096];
	copy_one_line(flat, sizeof flat, message);
	fprintf(stderr, "iibench: error: %s\n", flat);
	struct run_totals t = {.status = RUN_FAILED, .error = flat};
	report_summary(&t);
	return exit_status;
}

static int connect_one(struct run *r, struct db_conn **out)
{
	struct session_options session = {.pk = r->options->pk};
	char err[DB_ERROR_MAX], message[DB_ERROR_MAX + 4096];
	if (backend_connect(r->backend, &r->url, &session, out, err, sizeof err) == 0)
		return 0;
	connect_error_message(r->options->db_url, err, message, sizeof message);
	return fail_setup(EXIT_USAGE, message);
}

static void keep_engine(void *ctx, unsigned ncols, const char *const *values)
{
	char *engine = ctx;
	if (ncols > 0 && values[0] && !engine[0])
		snprintf(engine, ENGINE_NAME_MAX, "%s", values[0]);
}

/* MySQL/MariaDB: the engine the table really has, read back from the catalog. A server without
 * the engine (MyRocks is a plugin) may substitute its default when NO_ENGINE_SUBSTITUTION is
 * off: the run would measure InnoDB under another engine's name, so it stops instead. */
static int check_table_engine(struct run *r)
{
	char engine[ENGINE_NAME_MAX] = "", message[512];
	if (r->backend->kind != DB_MYSQL)
		return 0;
	if (r->backend->select_rows(r->control,
				    "SELECT engine FROM information_schema.tables WHERE table_schema = "
				    "DATABASE() AND table_name = '" PURCHASES_TABLE "'",
				    keep_engine, engine) != 0)
		return fail_setup(EXIT_FAILED, r->control->error);
	report_comment("table_engine %s", engine[0] ? engine : "-");
	if (strcasecmp(engine, r->options->engine) == 0)
		return 0;
	snprintf(message, sizeof message,
		 "the table " PURCHASES_TABLE " has engine %s, not the %s asked by --engine (is "
		 "the engine's plugin loaded on the server?)",
		 engine[0] ? engine : "(none)", r->options->engine);
	return fail_setup(EXIT_FAILED, message);
}

static int create_schema(struct run *r)
{
	struct ddl_script ddl = {0};
	struct index_info indexes[MAX_INDEXES];
	size_t count = 0;
	int rc = 0;
	/* --resume keeps the table: nothing is dropped or created. */
	if (!r->options->resume)
		schema_purchases(&ddl, r->backend->kind, r->options->pk, r->options->engine);
	for (size_t i = 0; i < ddl.count && rc == 0; i++)
		rc = r->backend->exec(r->control, ddl.statements[i]);
	ddl_script_free(&ddl);
	if (rc == 0)
		rc = r->backend->list_indexes(r->control, PURCHASES_TABLE, indexes, MAX_INDEXES, &count);
	if (rc != 0)
		return fail_setup(EXIT_FAILED, r->control->error);
	if (count == 0)
		return fail_setup(EXIT_FAILED, "--resume: there is no table " PURCHASES_TABLE
				  " with its indexes to continue");
	report_indexes(PURCHASES_TABLE, indexes, count);
	return check_table_engine(r);
}

/* All connections are opened before the clock starts. */
static int connect_threads(struct run *r)
{
	const struct run_options *o = r->options;
	r->writers = calloc(o->writers, sizeof *r->writers);
	r->reader_count = o->query_threads + o->readers;
	r->readers = calloc(r->reader_count ? r->reader_count : 1, sizeof *r->readers);
	if (!r->writers || !r->readers)
		return fail_setup(EXIT_FAILED, "out of memory");
	for (unsigned i = 0; i < o->writers; i++)
		if (connect_one(r, &r->writers[i].conn) != 0)
			return EXIT_USAGE;
	for (size_t i = 0; i < r->reader_count; i++) {
		struct reader *rd = &r->readers[i];
		rd->kind = i < o->query_threads ? READER_SECONDARY_QUERIES : READER_RANGE_SCAN;
		rd->index = (unsigned)i;
		rd->stream = seed_stream(o->seed + 1 + i);
		rd->pause_ms = o->reader_pause_ms;
		rd->progress = &r->progress;
		if (connect_one(r, &rd->conn) != 0)
			return EXIT_USAGE;
	}
	return 0;
}

static void start_threads(struct run *r)
{
	for (unsigned i = 0; i < r->options->writers; i++) {
		r->writers[i].plan = &r->plan;
		if (pthread_create(&r->writers[i].thread, NULL, writer_main, &r->writers[i]) != 0) {
			fputs("iibench: error: cannot start a writer thread\n", stderr);
			exit(EXIT_FAILED);
		}
	}
	for (size_t i = 0; i < r->reader_count; i++) {
		atomic_init(&r->readers[i].finished, false);
		if (pthread_create(&r->readers[i].thread, NULL, reader_main, &r->readers[i]) != 0) {
			fputs("iibench: error: cannot start a reader thread\n", stderr);
			exit(EXIT_FAILED);
		}
		r->readers[i].started = true;
	}
}

static void flush_tables(struct run *r)
{
	bool flushed = false;
	double start = clock_now();
	r->control->error[0] = '\0';
	if (r->backend->flush(r->control, PURCHASES_TABLE, &flushed) != 0)
		run_fail(r->control->error);
	else if (flushed)
		report_comment("flushed tables in %.3f s", clock_now() - start);
	else if (r->control->error[0])
		report_comment("flush skipped: %s", r->control->error);
}

static int finish(struct run *r, double t_end, uint64_t queries)
{
	struct progress *p = &r->progress;
	progress_final_line(p, t_end, queries);
	/* A stop (SIGTERM) still flushes: it ends the run cleanly. */
	if (!run_failed())
		flush_tables(r);
	cost_report_overhead(r->cost);
	report_client_cpu(p->rows);
	struct run_totals t = {
		.status = run_failed() ? RUN_FAILED : stop_signal() ? RUN_STOPPED : RUN_COMPLETED,
		.rows = p->rows,
		.deleted = p->deleted,
		.queries = queries,
		.seconds = t_end - p->t0,
		.signal = stop_signal(),
		.error = run_failure_message(),
	};
	if (t.status == RUN_FAILED)
		fprintf(stderr, "iibench: error: %s\n", t.error);
	report_summary(&t);
	return t.status == RUN_FAILED ? EXIT_FAILED : 0;
}

static void close_all(struct run *r)
{
	if (r->writers)
		for (unsigned i = 0; i < r->options->writers; i++)
			if (r->writers[i].conn)
				r->backend->close(r->writers[i].conn);
	for (size_t i = 0; r->readers && i < r->reader_count; i++)
		if (r->readers[i].conn)
			r->backend->close(r->readers[i].conn);
	if (r->control)
		r->backend->close(r->control);
	free(r->writers);
	free(r->readers);
	cost_probe_close(r->cost);
	free(r->cost);
}

/* The rows an interrupted run committed. Rows are generated by index, so the
 * next one is row N, with its pseudo time. With FIFO deletes the table holds
 * only the newest rows: the auto-increment key counts every row inserted. */
static int find_resume_point(struct run *r)
{
	const char *sql = r->options->delete_after && r->options->pk == PK_AUTOINC
		? "SELECT MAX(transactionid) FROM " PURCHASES_TABLE
		: "SELECT COUNT(*) FROM " PURCHASES_TABLE;
	if (r->backend->query_u64(r->control, sql, &r->resumed_rows) != 0)
		return fail_setup(EXIT_FAILED, r->control->error);
	report_comment("resumed at row %llu seconds=%.3f", (unsigned long long)r->resumed_rows,
		       r->options->resume_seconds);
	return 0;
}

/* The counters of a resumed run start where the interrupted one stopped: its
 * clock (t0 moved back), its rows, its next report and next row. */
static void continue_progress(struct run *r, double now)
{
	struct progress *p = &r->progress;
	uint64_t rows = r->resumed_rows, every = r->options->report_every;
	p->t0 = now - r->options->resume_seconds;
	r->plan.t0 = p->t0;
	p->rows = p->last_rows = rows;
	p->deleted = p->last_deleted = fifo_deletes_due(0, rows, r->options->delete_after);
	p->last_seconds = r->options->resume_seconds;
	/* The interrupted run printed the report at these rows already. */
	p->printed_any = rows > 0;
	p->last_commit_at = now;
	p->next_report = (rows / every + 1) * every;
	atomic_store(&r->plan.next_row, rows);
}

static int prepare_run(struct run *r)
{
	int rc = connect_one(r, &r->control);
	if (rc != 0)
		return rc;
	report_comment("backend %s", db_kind_name(r->backend->kind));
	report_comment("server %s", r->backend->server_version(r->control));
	if (!(r->cost = malloc(sizeof *r->cost)))
		return fail_setup(EXIT_FAILED, "out of memory");
	cost_probe_init(r->cost, !r->options->no_cost, r->backend, r->control, &r->url,
			r->options->server_pid);
	setup_report_machine(r->cost);
	setup_report_settings(r->backend, r->control);
	if ((rc = create_schema(r)) != 0)
		return rc;
	if (r->options->resume && (rc = find_resume_point(r)) != 0)
		return rc;
	return connect_threads(r);
}

static int execute(struct run *r)
{
	report_started(true);
	double t0 = clock_now();
	progress_init(&r->progress, r->options->report_every, t0);
	cost_probe_start(r->cost);
	r->progress.cost = r->cost;
	insert_plan_init(&r->plan, r->options, &r->progress, t0);
	if (r->options->resume)
		continue_progress(r, t0);
	start_threads(r);
	for (unsigned i = 0; i < r->options->writers; i++)
		pthread_join(r->writers[i].thread, NULL);
	/* The run ends with its last commit, not when the threads are joined;
	 * the summary counts the queries completed by then. */
	bool any = r->progress.rows > 0;
	double t_end = any ? r->progress.last_commit_at : clock_now();
	uint64_t queries = any ? r->progress.queries_at_last_commit : atomic_load(&r->progress.queries);
	readers_stop(r->readers, r->reader_count);
	return finish(r, t_end, queries);
}

int run_insert_benchmark(int argc, char **argv, const struct run_options *o)
{
	struct run r = {.options = o};
	char err[512];
	if (db_url_parse(o->db_url, &r.url, err, sizeof err) != 0) {
		char masked[4096];
		db_url_masked(o->db_url, masked, sizeof masked);
		fprintf(stderr, "iibench: error: bad --db URL '%s': %s\n"
				"Try 'iibench --help' for more information.\n", masked, err);
		return EXIT_USAGE;
	}
	if (!(r.backend = backend_for(r.url.kind))) {
		report_missing_backend(r.url.kind);
		return EXIT_USAGE;
	}
	runstate_install_signal_handlers();
	report_begin(argc, argv);
	print_params(o, r.url.kind);
	int rc = prepare_run(&r);
	if (rc == 0)
		rc = execute(&r);
	close_all(&r);
	return rc;
}
