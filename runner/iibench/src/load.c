#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "clock.h"
#include "loadgen.h"
#include "report.h"
#include "schema.h"
#include "textutil.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

struct load_run {
	const struct load_options *options;
	const struct backend *backend;
	struct db_url url;
	struct db_conn *conn;
	char dir[PATH_TEXT_MAX];
	bool temporary_dir;
	struct load_files files;
};

static int fail(int exit_status, const char *message)
{
	char flat[DB_ERROR_MAX + PATH_TEXT_MAX];
	copy_one_line(flat, sizeof flat, message);
	fprintf(stderr, "iibench: error: %s\n", flat);
	report_comment("summary status=failed mode=load rows=0 error=%s", flat);
	return exit_status;
}

static void print_params(const struct load_options *o, enum db_kind kind)
{
	char masked[4096];
	report_param_str("mode", "load");
	report_param_u64("keys", o->keys);
	report_param_u64("row_length", o->row_length);
	report_param_u64("rows", o->rows);
	report_param_u64("seed", o->seed);
	/* ENGINE= exists only in MySQL/MariaDB: elsewhere no engine was chosen. */
	if (kind == DB_MYSQL)
		report_param_str("engine", o->engine);
	db_url_masked(o->db_url, masked, sizeof masked);
	report_param_str("db", masked);
}

static int generate(struct load_run *r)
{
	const char *tmp = getenv("TMPDIR");
	if (r->options->out_dir) {
		snprintf(r->dir, sizeof r->dir, "%s", r->options->out_dir);
	} else {
		snprintf(r->dir, sizeof r->dir, "%s/iibench-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(r->dir))
			return fail(EXIT_FAILED, "cannot create a temporary directory");
		r->temporary_dir = true;
	}
	char err[PATH_TEXT_MAX + 256];
	double start = clock_now();
	if (loadgen_write(r->options, r->dir, &r->files, err, sizeof err) != 0)
		return fail(EXIT_FAILED, err);
	report_comment("generated %s bytes=%llu in %.3f s", r->files.data,
		       (unsigned long long)r->files.data_bytes, clock_now() - start);
	return 0;
}

static int create_table(struct load_run *r)
{
	const struct load_options *o = r->options;
	struct ddl_script ddl = {0};
	struct index_info indexes[MAX_INDEXES];
	size_t count = 0;
	int rc = 0;
	schema_load_table(&ddl, r->backend->kind, o->keys, o->row_length, o->engine, 1);
	for (size_t i = 0; i < ddl.count && rc == 0; i++)
		rc = r->backend->exec(r->conn, ddl.statements[i]);
	ddl_script_free(&ddl);
	if (rc == 0)
		rc = r->backend->list_indexes(r->conn, LOAD_TABLE, indexes, MAX_INDEXES, &count);
	if (rc != 0)
		return fail(EXIT_FAILED, r->conn->error);
	report_indexes(LOAD_TABLE, indexes, count);
	return 0;
}

static int timed_load(struct load_run *r)
{
	const struct load_options *o = r->options;
	uint64_t rows = 0;
	report_started(false);
	double start = clock_now();
	if (r->backend->load_file(r->conn, r->files.data, LOAD_TABLE, &rows) != 0)
		return fail(EXIT_FAILED, r->conn->error);
	double seconds = report_seconds(clock_now() - start, rows);
	if (rows != o->rows) {
		char message[256];
		snprintf(message, sizeof message, "loaded %llu rows, expected %llu",
			 (unsigned long long)rows, (unsigned long long)o->rows);
		return fail(EXIT_FAILED, message);
	}
	report_client_cpu(rows);
	report_comment("summary status=completed mode=load rows=%llu keys=%u row_length=%u "
		       "seconds=%.3f rows_per_s=%.1f kv_pairs_per_s=%.1f mb_per_s=%.1f data_bytes=%llu",
		       (unsigned long long)rows, o->keys, o->row_length, seconds,
		       (double)rows / seconds, (double)rows * o->keys / seconds,
		       (double)r->files.data_bytes / 1e6 / seconds,
		       (unsigned long long)r->files.data_bytes);
	return 0;
}

static int connect_target(struct load_run *r)
{
	struct session_options session = {.pk = PK_AUTOINC, .local_infile = true};
	char err[DB_ERROR_MAX], message[DB_ERROR_MAX + 4096];
	if (backend_connect(r->backend, &r->url, &session, &r->conn, err, sizeof err) == 0) {
		report_comment("backend %s", db_kind_name(r->backend->kind));
		report_comment("server %s", r->backend->server_version(r->conn));
		return 0;
	}
	connect_error_message(r->options->db_url, err, message, sizeof message);
	return fail(EXIT_USAGE, message);
}

int run_load_benchmark(int argc, char **argv, const struct load_options *o)
{
	struct load_run r = {.options = o};
	char err[512];
	if (db_url_parse(o->db_url, &r.url, err, sizeof err) != 0) {
		fprintf(stderr, "iibench: error: bad --db URL: %s\n", err);
		return EXIT_USAGE;
	}
	if (!(r.backend = backend_for(r.url.kind))) {
		report_missing_backend(r.url.kind);
		return EXIT_USAGE;
	}
	report_begin(argc, argv);
	print_params(o, r.url.kind);
	int rc = connect_target(&r);
	if (rc == 0)
		rc = generate(&r);
	if (rc == 0)
		rc = create_table(&r);
	if (rc == 0)
		rc = timed_load(&r);
	if (r.conn)
		r.backend->close(r.conn);
	if (r.temporary_dir)
		loadgen_remove(r.dir);
	return rc;
}
