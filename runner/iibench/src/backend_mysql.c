/* MySQL and MariaDB through MariaDB Connector/C. Inserts are multi-row
 * INSERT statements whose text is formatted without snprintf. */
#include <mysql.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "schema.h"
#include "textutil.h"

#define CONNECT_TIMEOUT_S 10

struct mysql_conn {
	struct db_conn base;
	MYSQL *mysql;
	bool transactions_on;  /* autocommit switched off by the first begin() */
	struct textbuf sql;
	struct datetime_cache dates;
};

static struct mysql_conn *as_mysql(struct db_conn *c)
{
	return (struct mysql_conn *)c;
}

static int fail_mysql(struct mysql_conn *m)
{
	return db_fail(&m->base, "%s", mysql_error(m->mysql));
}

static pthread_once_t library_once = PTHREAD_ONCE_INIT;

/* mysql_init() would initialise the library lazily, but not thread-safely. */
static void init_library(void)
{
	mysql_library_init(0, NULL, NULL);
}

static int mysql_connect_url(const struct db_url *url, const struct session_options *session,
			     struct db_conn **out, char *err, size_t errlen)
{
	*out = NULL;
	pthread_once(&library_once, init_library);
	struct mysql_conn *m = calloc(1, sizeof *m);
	if (!m || !(m->mysql = mysql_init(NULL))) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	m->base.session = *session;
	unsigned int timeout = CONNECT_TIMEOUT_S, local_infile = session->local_infile;
	mysql_options(m->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	mysql_options(m->mysql, MYSQL_OPT_LOCAL_INFILE, &local_infile);
	if (!mysql_real_connect(m->mysql, url->host, url->user[0] ? url->user : NULL,
				url->has_password ? url->password : NULL, url->database, url->port,
				NULL, 0)) {
		snprintf(err, errlen, "%s", mysql_error(m->mysql));
		mysql_close(m->mysql);
		free(m);
		return -1;
	}
	*out = &m->base;
	return 0;
}

static const char *mysql_version(struct db_conn *c)
{
	return mysql_get_server_info(as_mysql(c)->mysql);
}

/* Runs a statement and discards any result set. */
static int run(struct mysql_conn *m, const char *sql, size_t len)
{
	if (mysql_real_query(m->mysql, sql, (unsigned long)len) != 0)
		return fail_mysql(m);
	if (mysql_field_count(m->mysql) > 0) {
		MYSQL_RES *res = mysql_store_result(m->mysql);
		if (!res)
			return fail_mysql(m);
		mysql_free_result(res);
	}
	return 0;
}

static int mysql_exec(struct db_conn *c, const char *sql)
{
	return run(as_mysql(c), sql, strlen(sql));
}

static void append_column(struct index_info *ix, const char *column)
{
	size_t n = strlen(ix->columns);
	snprintf(ix->columns + n, sizeof ix->columns - n, "%s%s", n ? "," : "", column);
}

static int mysql_list_indexes(struct db_conn *c, const char *table, struct index_info *out,
			      size_t max, size_t *count)
{
	struct mysql_conn *m = as_mysql(c);
	char sql[256];
	snprintf(sql, sizeof sql, "SHOW INDEX FROM %s", table);
	*count = 0;
	memset(out, 0, max * sizeof *out);
	if (mysql_query(m->mysql, sql) != 0)
		return fail_mysql(m);
	MYSQL_RES *res = mysql_store_result(m->mysql);
	if (!res)
		return fail_mysql(m);
	/* One row per (index, column), in definition and key order:
	 * Table, Non_unique, Key_name, Seq_in_index, Column_name, ... */
	MYSQL_ROW row;
	while ((row = mysql_fetch_row(res))) {
		if (*count == 0 || strcmp(out[*count - 1].name, row[2]) != 0) {
			if (*count == max)
				break;
			struct index_info *ix = &out[(*count)++];
			snprintf(ix->name, sizeof ix->name, "%s", row[2]);
			ix->unique = strcmp(row[1], "0") == 0;
		}
		append_column(&out[*count - 1], row[4]);
	}
	mysql_free_result(res);
	return 0;
}

static int mysql_begin(struct db_conn *c)
{
	struct mysql_conn *m = as_mysql(c);
	/* With autocommit off every statement opens the next transaction
	 * itself: no BEGIN round trip per batch. */
	if (!m->transactions_on) {
		if (mysql_autocommit(m->mysql, 0) != 0)
			return fail_mysql(m);
		m->transactions_on = true;
	}
	return 0;
}

static int mysql_commit_txn(struct db_conn *c)
{
	struct mysql_conn *m = as_mysql(c);
	return mysql_commit(m->mysql) == 0 ? 0 : fail_mysql(m);
}

static int mysql_insert_purchases(struct db_conn *c, const struct purchase_row *rows, size_t n)
{
	struct mysql_conn *m = as_mysql(c);
	m->sql.len = 0;
	sql_insert_purchases(&m->sql, DB_MYSQL, c->session.pk, rows, n, &m->dates);
	if (mysql_real_query(m->mysql, m->sql.data, (unsigned long)m->sql.len) != 0)
		return fail_mysql(m);
	return 0;
}

static int mysql_delete_oldest(struct db_conn *c, uint64_t n, uint64_t *deleted)
{
	struct mysql_conn *m = as_mysql(c);
	char sql[128];
	int len = snprintf(sql, sizeof sql,
			   "DELETE FROM " PURCHASES_TABLE " ORDER BY transactionid LIMIT %llu",
			   (unsigned long long)n);
	if (mysql_real_query(m->mysql, sql, (unsigned long)len) != 0)
		return fail_mysql(m);
	*deleted = (uint64_t)mysql_affected_rows(m->mysql);
	return 0;
}

static int mysql_select_rows(struct db_conn *c, const char *sql, select_row_fn row, void *ctx)
{
	struct mysql_conn *m = as_mysql(c);
	if (mysql_real_query(m->mysql, sql, (unsigned long)strlen(sql)) != 0)
		return fail_mysql(m);
	MYSQL_RES *res = mysql_store_result(m->mysql);
	if (!res)
		return fail_mysql(m);
	unsigned ncols = mysql_num_fields(res);
	MYSQL_ROW values;
	while ((values = mysql_fetch_row(res)))
		row(ctx, ncols, (const char *const *)values);
	mysql_free_result(res);
	return 0;
}

static int mysql_run_query(struct db_conn *c, const char *sql, uint64_t *rows)
{
	struct mysql_conn *m = as_mysql(c);
	if (mysql_real_query(m->mysql, sql, (unsigned long)strlen(sql)) != 0)
		return fail_mysql(m);
	MYSQL_RES *res = mysql_store_result(m->mysql);
	if (!res)
		return fail_mysql(m);
	*rows = (uint64_t)mysql_num_rows(res);
	mysql_free_result(res);
	return 0;
}

static int mysql_query_u64(struct db_conn *c, const char *sql, uint64_t *value)
{
	struct mysql_conn *m = as_mysql(c);
	if (mysql_real_query(m->mysql, sql, (unsigned long)strlen(sql)) != 0)
		return fail_mysql(m);
	MYSQL_RES *res = mysql_store_result(m->mysql);
	if (!res)
		return fail_mysql(m);
	MYSQL_ROW row = mysql_fetch_row(res);
	*value = row && row[0] ? strtoull(row[0], NULL, 10) : 0;
	mysql_free_result(res);
	return 0;
}

/* ER_SPECIFIC_ACCESS_DENIED_ERROR: FLUSH TABLES needs the RELOAD privilege. */
#define ACCESS_DENIED_ERRNO 1227

static int mysql_flush(struct db_conn *c, const char *table, bool *flushed)
{
	struct mysql_conn *m = as_mysql(c);
	char sql[128];
	snprintf(sql, sizeof sql, "FLUSH TABLES %s", table);
	*flushed = mysql_exec(c, sql) == 0;
	/* A user without RELOAD still ran a complete benchmark: the rows are
	 * committed, only the epilogue is skipped (and said so). */
	if (!*flushed && mysql_errno(m->mysql) != ACCESS_DENIED_ERRNO)
		return -1;
	return 0;
}

/* LOAD DATA LOCAL turns errors such as duplicate keys into warnings and
 * skips the rows: any warning fails the load, never a silent partial one. */
static int first_warning(struct mysql_conn *m)
{
	if (mysql_query(m->mysql, "SHOW WARNINGS LIMIT 1") != 0)
		return fail_mysql(m);
	MYSQL_RES *res = mysql_store_result(m->mysql);
	MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
	db_fail(&m->base, "LOAD DATA reported a warning: %s", row && row[2] ? row[2] : "?");
	mysql_free_result(res);
	return -1;
}

static int mysql_load_file(struct db_conn *c, const char *path, const char *table, uint64_t *rows)
{
	struct mysql_conn *m = as_mysql(c);
	size_t n = strlen(path);
	char *escaped = malloc(2 * n + 1);
	if (!escaped)
		return db_fail(c, "out of memory");
	mysql_real_escape_string(m->mysql, escaped, path, (unsigned long)n);
	struct textbuf sql = {0};
	textbuf_printf(&sql, "LOAD DATA LOCAL INFILE '%s' INTO TABLE %s "
			     "FIELDS TERMINATED BY '|' LINES TERMINATED BY '\\n'", escaped, table);
	free(escaped);
	int rc = mysql_real_query(m->mysql, sql.data, (unsigned long)sql.len);
	textbuf_free(&sql);
	if (rc != 0)
		return fail_mysql(m);
	*rows = (uint64_t)mysql_affected_rows(m->mysql);
	return mysql_warning_count(m->mysql) ? first_warning(m) : 0;
}

static void mysql_interrupt(struct db_conn *c)
{
	/* Shuts the socket down: a blocked read returns at once. */
	mariadb_cancel(as_mysql(c)->mysql);
}

static void mysql_close_conn(struct db_conn *c)
{
	if (!c)
		return;
	struct mysql_conn *m = as_mysql(c);
	mysql_close(m->mysql);
	textbuf_free(&m->sql);
	free(m);
}

const struct backend mysql_backend = {
	.kind = DB_MYSQL,
	.connect = mysql_connect_url,
	.server_version = mysql_version,
	.exec = mysql_exec,
	.list_indexes = mysql_list_indexes,
	.begin = mysql_begin,
	.insert_purchases = mysql_insert_purchases,
	.delete_oldest = mysql_delete_oldest,
	.commit = mysql_commit_txn,
	.query = mysql_run_query,
	.select_rows = mysql_select_rows,
	.query_u64 = mysql_query_u64,
	.flush = mysql_flush,
	.load_file = mysql_load_file,
	.interrupt = mysql_interrupt,
	.close = mysql_close_conn,
};
