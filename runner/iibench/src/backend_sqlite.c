/* SQLite: the embedded default. Inserts bind values into a prepared
 * multi-row INSERT (no SQL text to parse per batch). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "schema.h"
#include "textutil.h"

/* A writer waits this long for another writer's transaction (WAL mode lets
 * readers run beside the single writer, but writers take turns). */
#define BUSY_TIMEOUT_MS 600000

/* 128 MiB of page cache, the size of InnoDB's default buffer pool, so both
 * meet the iiBench cliff at a similar table size (SQLite's default is 2 MB). */
#define CACHE_SIZE_PRAGMA "PRAGMA cache_size=-131072"

struct insert_stmt {
	sqlite3_stmt *stmt;
	size_t rows;
};

struct sqlite_conn {
	struct db_conn base;
	sqlite3 *db;
	struct insert_stmt full;     /* the usual batch size */
	struct insert_stmt partial;  /* the last, shorter batch */
	sqlite3_stmt *delete_oldest;
	char date_text[DATETIME_TEXT_LEN + 1];
};

static struct sqlite_conn *as_sqlite(struct db_conn *c)
{
	return (struct sqlite_conn *)c;
}

static int fail_db(struct sqlite_conn *s)
{
	return db_fail(&s->base, "%s", sqlite3_errmsg(s->db));
}

static int exec_sql(struct db_conn *c, const char *sql)
{
	struct sqlite_conn *s = as_sqlite(c);
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		db_fail(c, "%s", msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int sqlite_connect(const struct db_url *url, const struct session_options *session,
			  struct db_conn **out, char *err, size_t errlen)
{
	*out = NULL;
	struct sqlite_conn *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (sqlite3_open_v2(url->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)
	    != SQLITE_OK) {
		snprintf(err, errlen, "%s", s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sqlite3_close(s->db);
		free(s);
		return -1;
	}
	s->base.session = *session;
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	/* WAL: query threads and readers read while the writer writes.
	 * synchronous=NORMAL: no fsync per commit; the file stays consistent
	 * after a crash (documented in README.md). */
	if (exec_sql(&s->base, "PRAGMA journal_mode=WAL") != 0
	    || exec_sql(&s->base, "PRAGMA synchronous=NORMAL") != 0
	    || exec_sql(&s->base, CACHE_SIZE_PRAGMA) != 0) {
		snprintf(err, errlen, "%s", s->base.error);
		sqlite3_close(s->db);
		free(s);
		return -1;
	}
	*out = &s->base;
	return 0;
}

static const char *sqlite_server_version(struct db_conn *c)
{
	(void)c;
	return sqlite3_libversion();
}

static int prepare(struct sqlite_conn *s, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, stmt, NULL) != SQLITE_OK)
		return fail_db(s);
	return 0;
}

static int index_columns(struct sqlite_conn *s, const char *index, struct index_info *ix)
{
	sqlite3_stmt *st;
	if (prepare(s, "SELECT name FROM pragma_index_info(?1) ORDER BY seqno", &st) != 0)
		return -1;
	sqlite3_bind_text(st, 1, index, -1, SQLITE_STATIC);
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		n += (size_t)snprintf(ix->columns + n, n < sizeof ix->columns ? sizeof ix->columns - n : 0,
				      "%s%s", n ? "," : "", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

/* A rowid table has no index for its INTEGER PRIMARY KEY: report the key
 * from the table's own definition. */
static int rowid_primary(struct sqlite_conn *s, const char *table, struct index_info *ix,
			 size_t *count)
{
	sqlite3_stmt *st;
	if (prepare(s, "SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk", &st) != 0)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		n += (size_t)snprintf(ix->columns + n, n < sizeof ix->columns ? sizeof ix->columns - n : 0,
				      "%s%s", n ? "," : "", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (n) {
		strcpy(ix->name, "PRIMARY");
		ix->unique = true;
		(*count)++;
	}
	return 0;
}

static bool has_pk_index(struct sqlite_conn *s, const char *table)
{
	sqlite3_stmt *st;
	if (prepare(s, "SELECT 1 FROM pragma_index_list(?1) WHERE origin = 'pk'", &st) != 0)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static int sqlite_list_indexes(struct db_conn *c, const char *table, struct index_info *out,
			       size_t max, size_t *count)
{
	struct sqlite_conn *s = as_sqlite(c);
	sqlite3_stmt *st;
	*count = 0;
	memset(out, 0, max * sizeof *out);
	if (!has_pk_index(s, table) && rowid_primary(s, table, &out[0], count) != 0)
		return -1;
	/* Primary key first, then the indexes in creation order. */
	if (prepare(s, "SELECT il.name, il.\"unique\", il.origin = 'pk' "
		       "FROM pragma_index_list(?1) il LEFT JOIN sqlite_master m ON m.name = il.name "
		       "ORDER BY il.origin = 'pk' DESC, m.rowid", &st) != 0)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int rc = 0;
	while (rc == 0 && *count < max && sqlite3_step(st) == SQLITE_ROW) {
		struct index_info *ix = &out[*count];
		const char *name = (const char *)sqlite3_column_text(st, 0);
		snprintf(ix->name, sizeof ix->name, "%s", sqlite3_column_int(st, 2) ? "PRIMARY" : name);
		ix->unique = sqlite3_column_int(st, 1) != 0;
		rc = index_columns(s, name, ix);
		(*count)++;
	}
	sqlite3_finalize(st);
	return rc;
}

static int sqlite_begin(struct db_conn *c)
{
	/* IMMEDIATE takes the write lock now: a deferred transaction that reads
	 * first could not upgrade later without a deadlock between writers. */
	return exec_sql(c, "BEGIN IMMEDIATE");
}

static int sqlite_commit(struct db_conn *c)
{
	return exec_sql(c, "COMMIT");
}

static int prepare_insert(struct sqlite_conn *s, struct insert_stmt *ins, size_t rows)
{
	if (ins->stmt && ins->rows == rows)
		return 0;
	sqlite3_finalize(ins->stmt);
	ins->stmt = NULL;
	bool uuid = s->base.session.pk != PK_AUTOINC;
	struct textbuf b = {0};
	textbuf_puts(&b, uuid ? "INSERT INTO " PURCHASES_TABLE
				" (transactionid,dateandtime,cashregisterid,customerid,productid,price) VALUES "
			      : "INSERT INTO " PURCHASES_TABLE
				" (dateandtime,cashregisterid,customerid,productid,price) VALUES ");
	for (size_t i = 0; i < rows; i++)
		textbuf_puts(&b, uuid ? (i ? ",(?,?,?,?,?,?)" : "(?,?,?,?,?,?)")
				      : (i ? ",(?,?,?,?,?)" : "(?,?,?,?,?)"));
	int rc = prepare(s, b.data, &ins->stmt);
	textbuf_free(&b);
	ins->rows = rc == 0 ? rows : 0;
	return rc;
}

static void bind_row(struct sqlite_conn *s, sqlite3_stmt *st, int col,
		     const struct purchase_row *r)
{
	if (s->base.session.pk == PK_UUID_CHAR) {
		char text[36];
		fmt_uuid(text, r->uuid);
		sqlite3_bind_text(st, col++, text, 36, SQLITE_TRANSIENT);
	} else if (s->base.session.pk == PK_UUID_ORDERED) {
		sqlite3_bind_blob(st, col++, r->uuid, 16, SQLITE_TRANSIENT);
	}
	format_datetime(r->dateandtime, s->date_text);
	sqlite3_bind_text(st, col++, s->date_text, DATETIME_TEXT_LEN, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, col++, (int)r->cashregisterid);
	sqlite3_bind_int(st, col++, (int)r->customerid);
	sqlite3_bind_int(st, col++, (int)r->productid);
	sqlite3_bind_double(st, col, r->price_cents / 100.0);
}

static int insert_chunk(struct sqlite_conn *s, struct insert_stmt *ins,
			const struct purchase_row *rows, size_t n)
{
	if (prepare_insert(s, ins, n) != 0)
		return -1;
	int per_row = s->base.session.pk == PK_AUTOINC ? 5 : 6;
	for (size_t i = 0; i < n; i++)
		bind_row(s, ins->stmt, (int)i * per_row + 1, &rows[i]);
	int rc = sqlite3_step(ins->stmt);
	sqlite3_reset(ins->stmt);
	return rc == SQLITE_DONE ? 0 : fail_db(s);
}

static int sqlite_insert_purchases(struct db_conn *c, const struct purchase_row *rows, size_t n)
{
	struct sqlite_conn *s = as_sqlite(c);
	/* SQLite caps the parameters of one statement: a batch above the cap is
	 * sent as several smaller INSERTs (never more rows per INSERT). */
	size_t per_row = s->base.session.pk == PK_AUTOINC ? 5 : 6;
	size_t cap = (size_t)sqlite3_limit(s->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1) / per_row;
	while (n > 0) {
		size_t m = n < cap ? n : cap;
		struct insert_stmt *ins = (!s->full.stmt || s->full.rows == m) ? &s->full : &s->partial;
		if (insert_chunk(s, ins, rows, m) != 0)
			return -1;
		rows += m;
		n -= m;
	}
	return 0;
}

static int sqlite_delete_oldest(struct db_conn *c, uint64_t n, uint64_t *deleted)
{
	struct sqlite_conn *s = as_sqlite(c);
	/* Without SQLITE_ENABLE_UPDATE_DELETE_LIMIT there is no DELETE ... LIMIT. */
	if (!s->delete_oldest
	    && prepare(s, "DELETE FROM " PURCHASES_TABLE " WHERE transactionid IN (SELECT transactionid "
			  "FROM " PURCHASES_TABLE " ORDER BY transactionid LIMIT ?1)",
		       &s->delete_oldest) != 0)
		return -1;
	sqlite3_bind_int64(s->delete_oldest, 1, (sqlite3_int64)n);
	int rc = sqlite3_step(s->delete_oldest);
	sqlite3_reset(s->delete_oldest);
	if (rc != SQLITE_DONE)
		return fail_db(s);
	*deleted = (uint64_t)sqlite3_changes64(s->db);
	return 0;
}

static int sqlite_query(struct db_conn *c, const char *sql, uint64_t *rows)
{
	struct sqlite_conn *s = as_sqlite(c);
	sqlite3_stmt *st;
	if (prepare(s, sql, &st) != 0)
		return -1;
	int rc;
	*rows = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		(*rows)++;
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail_db(s);
}

static int sqlite_select_rows(struct db_conn *c, const char *sql, select_row_fn row, void *ctx)
{
	struct sqlite_conn *s = as_sqlite(c);
	sqlite3_stmt *st;
	if (prepare(s, sql, &st) != 0)
		return -1;
	int rc, ncols = sqlite3_column_count(st);
	const char *values[64];
	if (ncols > 64)
		ncols = 64;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++)
			values[i] = (const char *)sqlite3_column_text(st, i);
		row(ctx, (unsigned)ncols, values);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail_db(s);
}

static int sqlite_query_u64(struct db_conn *c, const char *sql, uint64_t *value)
{
	struct sqlite_conn *s = as_sqlite(c);
	sqlite3_stmt *st;
	if (prepare(s, sql, &st) != 0)
		return -1;
	int rc = sqlite3_step(st);
	*value = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail_db(s);
}

static int sqlite_flush(struct db_conn *c, const char *table, bool *flushed)
{
	(void)table;
	uint64_t rows;
	/* SQLite's analogue of FLUSH TABLES: move the WAL into the database file. */
	*flushed = true;
	return sqlite_query(c, "PRAGMA wal_checkpoint(TRUNCATE)", &rows);
}

/* Splits a '|'-separated line in place; returns the number of fields. */
static size_t split_fields(char *line, char **fields, size_t max)
{
	size_t n = 0;
	fields[n++] = line;
	for (char *p = line; *p && n < max; p++) {
		if (*p == '|') {
			*p = '\0';
			fields[n++] = p + 1;
		}
	}
	return n;
}

static int prepare_load_insert(struct sqlite_conn *s, const char *table, size_t nfields,
			       sqlite3_stmt **st)
{
	struct textbuf b = {0};
	textbuf_printf(&b, "INSERT INTO %s VALUES (", table);
	for (size_t i = 0; i < nfields; i++)
		textbuf_puts(&b, i ? ",?" : "?");
	textbuf_puts(&b, ")");
	int rc = prepare(s, b.data, st);
	textbuf_free(&b);
	return rc;
}

static int load_line(struct sqlite_conn *s, sqlite3_stmt **st, const char *table, char *line)
{
	char *fields[64];
	line[strcspn(line, "\n")] = '\0';
	size_t n = split_fields(line, fields, 64);
	if (!*st && prepare_load_insert(s, table, n, st) != 0)
		return -1;
	if ((int)n != sqlite3_bind_parameter_count(*st))
		return db_fail(&s->base, "malformed data line: %zu fields, expected %d", n,
			       sqlite3_bind_parameter_count(*st));
	for (size_t i = 0; i + 1 < n; i++)
		sqlite3_bind_int64(*st, (int)i + 1, (sqlite3_int64)strtoull(fields[i], NULL, 10));
	sqlite3_bind_text(*st, (int)n, fields[n - 1], -1, SQLITE_STATIC);
	int rc = sqlite3_step(*st);
	sqlite3_reset(*st);
	return rc == SQLITE_DONE ? 0 : fail_db(s);
}

static int sqlite_load_file(struct db_conn *c, const char *path, const char *table, uint64_t *rows)
{
	struct sqlite_conn *s = as_sqlite(c);
	FILE *f = fopen(path, "r");
	if (!f)
		return db_fail(c, "cannot read %s", path);
	sqlite3_stmt *st = NULL;
	char *line = NULL;
	size_t cap = 0;
	int rc = exec_sql(c, "BEGIN IMMEDIATE");
	*rows = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		rc = load_line(s, &st, table, line);
		*rows += rc == 0;
	}
	free(line);
	fclose(f);
	sqlite3_finalize(st);
	if (rc != 0) {
		char saved[DB_ERROR_MAX];
		memcpy(saved, c->error, sizeof saved);
		exec_sql(c, "ROLLBACK");
		memcpy(c->error, saved, sizeof saved);
		return -1;
	}
	return exec_sql(c, "COMMIT");
}

static void sqlite_interrupt(struct db_conn *c)
{
	sqlite3_interrupt(as_sqlite(c)->db);
}

static void sqlite_close(struct db_conn *c)
{
	if (!c)
		return;
	struct sqlite_conn *s = as_sqlite(c);
	sqlite3_finalize(s->full.stmt);
	sqlite3_finalize(s->partial.stmt);
	sqlite3_finalize(s->delete_oldest);
	sqlite3_close(s->db);
	free(s);
}

const struct backend sqlite_backend = {
	.kind = DB_SQLITE,
	.connect = sqlite_connect,
	.server_version = sqlite_server_version,
	.exec = exec_sql,
	.list_indexes = sqlite_list_indexes,
	.begin = sqlite_begin,
	.insert_purchases = sqlite_insert_purchases,
	.delete_oldest = sqlite_delete_oldest,
	.commit = sqlite_commit,
	.query = sqlite_query,
	.select_rows = sqlite_select_rows,
	.query_u64 = sqlite_query_u64,
	.flush = sqlite_flush,
	.load_file = sqlite_load_file,
	.interrupt = sqlite_interrupt,
	.close = sqlite_close,
};
