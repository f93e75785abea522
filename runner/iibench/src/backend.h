/* The small interface every database backend implements.
 *
 * A connection belongs to one thread at a time. Every call returns 0 on
 * success or -1 with the server's message in conn->error. */
#ifndef IIBENCH_BACKEND_H
#define IIBENCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datagen.h"
#include "url.h"

#define DB_ERROR_MAX 1024

struct index_info {
	char name[64];      /* the primary key is always reported as PRIMARY */
	char columns[512];  /* comma-separated, in key order */
	bool unique;
};

#define MAX_INDEXES 40

struct session_options {
	enum pk_kind pk;        /* what insert_purchases writes */
	bool local_infile;      /* MySQL: allow LOAD DATA LOCAL INFILE */
};

struct db_conn {
	const struct backend *backend;
	struct session_options session;
	char error[DB_ERROR_MAX];
};

typedef void (*select_row_fn)(void *ctx, unsigned ncols, const char *const *values);

struct backend {
	enum db_kind kind;
	/* On failure *out is NULL and err holds the server's or library's message. */
	int (*connect)(const struct db_url *url, const struct session_options *session,
		       struct db_conn **out, char *err, size_t errlen);
	const char *(*server_version)(struct db_conn *c);
	/* One statement that returns no rows (DDL, DROP, ...). */
	int (*exec)(struct db_conn *c, const char *sql);
	/* The table's indexes as the server's catalog has them, primary first. */
	int (*list_indexes)(struct db_conn *c, const char *table, struct index_info *out,
			    size_t max, size_t *count);
	/* Opens a transaction (lazily where the protocol allows). */
	int (*begin)(struct db_conn *c);
	/* One multi-row INSERT into mypurchases of at most n rows each. */
	int (*insert_purchases)(struct db_conn *c, const struct purchase_row *rows, size_t n);
	/* Deletes the n rows with the smallest primary key (FIFO). */
	int (*delete_oldest)(struct db_conn *c, uint64_t n, uint64_t *deleted);
	int (*commit)(struct db_conn *c);
	/* Runs a SELECT and reads its result; *rows = rows returned. */
	int (*query)(struct db_conn *c, const char *sql, uint64_t *rows);
	/* Runs a SELECT and hands each row's values, as text (NULL for SQL
	 * NULL), to `row`: what the cost probe reads from the server. */
	int (*select_rows)(struct db_conn *c, const char *sql, select_row_fn row, void *ctx);
	/* Runs a SELECT of one whole number (COUNT, MAX); NULL or no row is 0. */
	int (*query_u64)(struct db_conn *c, const char *sql, uint64_t *value);
	/* Writes the table out (MySQL: FLUSH TABLES). *flushed = false when
	 * it was skipped: c->error then says why, or is empty when the backend
	 * has nothing of the kind. */
	int (*flush)(struct db_conn *c, const char *table, bool *flushed);
	/* Bulk-loads a '|'-separated file: LOAD DATA LOCAL INFILE, COPY FROM
	 * STDIN, or one SQLite transaction of prepared INSERTs. */
	int (*load_file)(struct db_conn *c, const char *path, const char *table, uint64_t *rows);
	/* Called from another thread: makes the connection's running statement
	 * (and possibly the connection) fail soon. Used to end readers. */
	void (*interrupt)(struct db_conn *c);
	void (*close)(struct db_conn *c);
};

/* backend->connect, and the connection remembers its backend. */
int backend_connect(const struct backend *backend, const struct db_url *url,
		    const struct session_options *session, struct db_conn **out, char *err,
		    size_t errlen);

/* "cannot connect to <url, password masked>: <message>" */
void connect_error_message(const char *url_text, const char *err, char *out, size_t outlen);

/* NULL when this build lacks the backend (its client library was missing). */
const struct backend *backend_for(enum db_kind kind);

/* Prints on stderr that this build lacks the backend, and how to get it. */
void report_missing_backend(enum db_kind kind);

/* "sqlite,mysql,postgresql" or a subset. */
const char *backends_built(void);

/* Sets c->error from a printf format; returns -1 for `return db_fail(...)`. */
int db_fail(struct db_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
