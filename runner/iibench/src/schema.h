/* The SQL text of the benchmark, in each backend's own dialect: the tables,
 * the multi-row INSERT, and the queries of the query threads and readers. */
#ifndef IIBENCH_SCHEMA_H
#define IIBENCH_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "datagen.h"
#include "textutil.h"
#include "url.h"

#define PURCHASES_TABLE "mypurchases"
#define LOAD_TABLE "load_table"
#define DDL_MAX_STATEMENTS 40

/* Statements to run in order; each is malloc'd. */
struct ddl_script {
	size_t count;
	char *statements[DDL_MAX_STATEMENTS];
};

void ddl_script_free(struct ddl_script *s);

/* DROP TABLE IF EXISTS mypurchases, then CREATE TABLE with its primary key
 * and the three secondary indexes, all before the first row. */
void schema_purchases(struct ddl_script *s, enum db_kind dialect, enum pk_kind pk,
		      const char *engine);

/* CREATE TABLE load_table as seed 003 shows it (val0 the primary key,
 * valkeyN on valN, a VARCHAR pad); with_drop prefixes a DROP TABLE. */
void schema_load_table(struct ddl_script *s, enum db_kind dialect, unsigned keys,
		       unsigned row_length, const char *engine, int with_drop);

/* The caches of text that changes once per pseudo second. */
struct datetime_cache {
	int64_t epoch;
	int valid;
	char text[DATETIME_TEXT_LEN + 1];
};

/* Appends "INSERT INTO mypurchases (...) VALUES (...),(...)" for n rows. */
void sql_insert_purchases(struct textbuf *b, enum db_kind dialect, enum pk_kind pk,
			  const struct purchase_row *rows, size_t n, struct datetime_cache *dc);

/* The literal of a row's primary key (for the UUID kinds) in this dialect. */
char *fmt_pk_literal(char *p, enum db_kind dialect, enum pk_kind pk, const uint8_t uuid[16]);

#define SECONDARY_QUERY_KINDS 3
/* A LIMIT 10 query that walks secondary index `which` (0 marketsegment,
 * 1 registersegment, 2 pdc) from a random starting point `r`. */
void sql_secondary_query(struct textbuf *b, enum db_kind dialect, unsigned which, uint64_t r);

/* Seed 004's reader: a range scan over the whole primary key. */
void sql_range_scan(struct textbuf *b, enum db_kind dialect);

#endif
