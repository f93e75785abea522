/* PostgreSQL through libpq. Inserts are multi-row INSERT statements; BEGIN
 * rides in the same round trip as the first INSERT of a transaction. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "schema.h"
#include "textutil.h"

#define COPY_CHUNK (1 << 20)

struct pg_conn {
	struct db_conn base;
	PGconn *pg;
	PGcancel *cancel;
	bool begin_pending;   /* begin() called, BEGIN not yet sent */
	struct textbuf sql;
	struct datetime_cache dates;
};

static struct pg_conn *as_pg(struct db_conn *c)
{
	return (struct pg_conn *)c;
}

/* The primary message ("relation ... does not exist"), without the
 * severity prefix and the LINE/HINT lines of PQerrorMessage. */
static int fail_result(struct pg_conn *p, PGresult *res)
{
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char flat[DB_ERROR_MAX];
	copy_one_line(flat, sizeof flat, primary ? primary : PQerrorMessage(p->pg));
	PQclear(res);
	return db_fail(&p->base, "%s", flat);
}

/* NOTICEs such as "table does not exist, skipping" are not for our output. */
static void ignore_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int pg_connect(const struct db_url *url, const struct session_options *session,
		      struct db_conn **out, char *err, size_t errlen)
{
	*out = NULL;
	char port[16];
	snprintf(port, sizeof port, "%u", url->port ? url->port : 5432);
	const char *keys[] = {"host", "port", "user", "password", "dbname", "connect_timeout",
			      "application_name", NULL};
	const char *values[] = {url->host, port, url->user[0] ? url->user : NULL,
				url->has_password ? url->password : NULL, url->database, "10",
				"iibench", NULL};
	PGconn *pg = PQconnectdbParams(keys, values, 0);
	if (!pg || PQstatus(pg) != CONNECTION_OK) {
		copy_one_line(err, errlen, pg ? PQerrorMessage(pg) : "out of memory");
		PQfinish(pg);
		return -1;
	}
	struct pg_conn *p = calloc(1, sizeof *p);
	if (!p) {
		PQfinish(pg);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->pg = pg;
	p->cancel = PQgetCancel(pg);
	p->base.session = *session;
	PQsetNoticeProcessor(pg, ignore_notice, NULL);
	*out = &p->base;
	return 0;
}

static const char *pg_version(struct db_conn *c)
{
	const char *v = PQparameterStatus(as_pg(c)->pg, "server_version");
	return v ? v : "unknown";
}

/* Runs SQL that returns no rows (it may hold several statements). */
static int run(struct pg_conn *p, const char *sql)
{
	PGresult *res = PQexec(p->pg, sql);
	ExecStatusType st = PQresultStatus(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		return fail_result(p, res);
	PQclear(res);
	return 0;
}

static int pg_exec(struct db_conn *c, const char *sql)
{
	return run(as_pg(c), sql);
}

static int pg_list_indexes(struct db_conn *c, const char *table, struct index_info *out,
			   size_t max, size_t *count)
{
	struct pg_conn *p = as_pg(c);
	/* Primary key first, then creation order (index OIDs grow). */
	const char *sql =
		"SELECT i.relname, ix.indisunique, ix.indisprimary, "
		"  array_to_string(ARRAY(SELECT a.attname FROM unnest(ix.indkey::int2[]) "
		"    WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a "
		"    ON a.attrelid = ix.indrelid AND a.attnum = k.attnum ORDER BY k.ord), ',') "
		"FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid "
		"WHERE ix.indrelid = $1::regclass ORDER BY ix.indisprimary DESC, i.oid";
	const char *params[] = {table};
	PGresult *res = PQexecParams(p->pg, sql, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail_result(p, res);
	*count = 0;
	memset(out, 0, max * sizeof *out);
	for (int r = 0; r < PQntuples(res) && *count < max; r++) {
		struct index_info *ix = &out[(*count)++];
		bool primary = PQgetvalue(res, r, 2)[0] == 't';
		snprintf(ix->name, sizeof ix->name, "%s", primary ? "PRIMARY" : PQgetvalue(res, r, 0));
		ix->unique = PQgetvalue(res, r, 1)[0] == 't';
		snprintf(ix->columns, sizeof ix->columns, "%s", PQgetvalue(res, r, 3));
	}
	PQclear(res);
	return 0;
}

static int pg_begin(struct db_conn *c)
{
	as_pg(c)->begin_pending = true;
	return 0;
}

/* Prefixes a pending BEGIN to the statement about to be sent. */
static void start_statement(struct pg_conn *p)
{
	p->sql.len = 0;
	if (p->begin_pending) {
		textbuf_puts(&p->sql, "BEGIN;");
		p->begin_pending = false;
	}
}

static int pg_insert_purchases(struct db_conn *c, const struct purchase_row *rows, size_t n)
{
	struct pg_conn *p = as_pg(c);
	start_statement(p);
	sql_insert_purchases(&p->sql, DB_POSTGRESQL, c->session.pk, rows, n, &p->dates);
	return run(p, p->sql.data);
}

static int pg_delete_oldest(struct db_conn *c, uint64_t n, uint64_t *deleted)
{
	struct pg_conn *p = as_pg(c);
	start_statement(p);
	/* SKIP LOCKED: two writers' FIFO deletes take different oldest rows
	 * instead of one waiting and then finding its rows gone. */
	textbuf_printf(&p->sql, "DELETE FROM " PURCHASES_TABLE " WHERE transactionid IN "
				"(SELECT transactionid FROM " PURCHASES_TABLE " ORDER BY transactionid "
				"LIMIT %llu FOR UPDATE SKIP LOCKED)", (unsigned long long)n);
	PGresult *res = PQexec(p->pg, p->sql.data);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		return fail_result(p, res);
	*deleted = strtoull(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return 0;
}

static int pg_commit(struct db_conn *c)
{
	struct pg_conn *p = as_pg(c);
	if (p->begin_pending) {
		/* Nothing was sent in this transaction. */
		p->begin_pending = false;
		return 0;
	}
	return run(p, "COMMIT");
}

static int pg_query(struct db_conn *c, const char *sql, uint64_t *rows)
{
	struct pg_conn *p = as_pg(c);
	PGresult *res = PQexec(p->pg, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail_result(p, res);
	*rows = (uint64_t)PQntuples(res);
	PQclear(res);
	return 0;
}

static int pg_select_rows(struct db_conn *c, const char *sql, select_row_fn row, void *ctx)
{
	struct pg_conn *p = as_pg(c);
	PGresult *res = PQexec(p->pg, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail_result(p, res);
	int ncols = PQnfields(res);
	const char *values[64];
	if (ncols > 64)
		ncols = 64;
	for (int r = 0; r < PQntuples(res); r++) {
		for (int i = 0; i < ncols; i++)
			values[i] = PQgetisnull(res, r, i) ? NULL : PQgetvalue(res, r, i);
		row(ctx, (unsigned)ncols, values);
	}
	PQclear(res);
	return 0;
}

static int pg_query_u64(struct db_conn *c, const char *sql, uint64_t *value)
{
	struct pg_conn *p = as_pg(c);
	PGresult *res = PQexec(p->pg, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail_result(p, res);
	bool found = PQntuples(res) > 0 && !PQgetisnull(res, 0, 0);
	*value = found ? strtoull(PQgetvalue(res, 0, 0), NULL, 10) : 0;
	PQclear(res);
	return 0;
}

static int pg_flush(struct db_conn *c, const char *table, bool *flushed)
{
	(void)c;
	(void)table;
	/* PostgreSQL has no FLUSH TABLES; a CHECKPOINT would need privileges
	 * the benchmark should not ask for. */
	*flushed = false;
	return 0;
}

static int copy_file(struct pg_conn *p, FILE *f)
{
	char *chunk = malloc(COPY_CHUNK);
	if (!chunk)
		return db_fail(&p->base, "out of memory");
	size_t n;
	int rc = 0;
	while (rc == 0 && (n = fread(chunk, 1, COPY_CHUNK, f)) > 0)
		if (PQputCopyData(p->pg, chunk, (int)n) != 1)
			rc = fail_result(p, NULL);
	free(chunk);
	if (PQputCopyEnd(p->pg, rc == 0 ? NULL : "aborted by iibench") != 1 && rc == 0)
		rc = fail_result(p, NULL);
	return rc;
}

static int pg_load_file(struct db_conn *c, const char *path, const char *table, uint64_t *rows)
{
	struct pg_conn *p = as_pg(c);
	FILE *f = fopen(path, "r");
	if (!f)
		return db_fail(c, "cannot read %s", path);
	struct textbuf sql = {0};
	textbuf_printf(&sql, "COPY %s FROM STDIN WITH (FORMAT text, DELIMITER '|')", table);
	PGresult *res = PQexec(p->pg, sql.data);
	textbuf_free(&sql);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		fclose(f);
		return fail_result(p, res);
	}
	PQclear(res);
	int rc = copy_file(p, f);
	fclose(f);
	/* The COPY's own result, then the end of the command. */
	while ((res = PQgetResult(p->pg))) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			if (rc == 0)
				rc = fail_result(p, res);
			else
				PQclear(res);
			continue;
		}
		*rows = strtoull(PQcmdTuples(res), NULL, 10);
		PQclear(res);
	}
	return rc;
}

static void pg_interrupt(struct db_conn *c)
{
	char err[256];
	/* PQcancel is the one libpq call meant for another thread. */
	PQcancel(as_pg(c)->cancel, err, sizeof err);
}

static void pg_close(struct db_conn *c)
{
	if (!c)
		return;
	struct pg_conn *p = as_pg(c);
	PQfreeCancel(p->cancel);
	PQfinish(p->pg);
	textbuf_free(&p->sql);
	free(p);
}

const struct backend pg_backend = {
	.kind = DB_POSTGRESQL,
	.connect = pg_connect,
	.server_version = pg_version,
	.exec = pg_exec,
	.list_indexes = pg_list_indexes,
	.begin = pg_begin,
	.insert_purchases = pg_insert_purchases,
	.delete_oldest = pg_delete_oldest,
	.commit = pg_commit,
	.query = pg_query,
	.select_rows = pg_select_rows,
	.query_u64 = pg_query_u64,
	.flush = pg_flush,
	.load_file = pg_load_file,
	.interrupt = pg_interrupt,
	.close = pg_close,
};
