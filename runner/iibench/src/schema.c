#include "schema.h"

#include <stdlib.h>
#include <string.h>

static void add_statement(struct ddl_script *s, struct textbuf *b)
{
	if (s->count < DDL_MAX_STATEMENTS) {
		s->statements[s->count++] = b->data;
		*b = (struct textbuf){0};
	} else {
		textbuf_free(b);
	}
}

void ddl_script_free(struct ddl_script *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->statements[i]);
	s->count = 0;
}

struct secondary_index {
	const char *name;
	const char *columns;
};

/* The 2008 contest's secondary keys. */
static const struct secondary_index purchase_indexes[] = {
	{"marketsegment", "price, customerid"},
	{"registersegment", "cashregisterid, price, customerid"},
	{"pdc", "price, dateandtime, customerid"},
};

static const char *pk_column_type(enum db_kind dialect, enum pk_kind pk)
{
	switch (pk) {
	case PK_AUTOINC:
		return dialect == DB_MYSQL ? "INT NOT NULL AUTO_INCREMENT"
		       : dialect == DB_POSTGRESQL ? "INTEGER GENERATED ALWAYS AS IDENTITY"
		       /* SQLite: the rowid alias is its auto-increment key. */
		       : "INTEGER PRIMARY KEY";
	case PK_UUID_CHAR:
		return dialect == DB_SQLITE ? "CHAR(36) NOT NULL PRIMARY KEY" : "CHAR(36) NOT NULL";
	case PK_UUID_ORDERED:
		return dialect == DB_MYSQL ? "BINARY(16) NOT NULL"
		       : dialect == DB_POSTGRESQL ? "BYTEA NOT NULL"
		       : "BLOB NOT NULL PRIMARY KEY";
	}
	return "";
}

static const char *datetime_type(enum db_kind dialect)
{
	return dialect == DB_POSTGRESQL ? "TIMESTAMP" : "DATETIME";
}

static const char *float_type(enum db_kind dialect)
{
	return dialect == DB_MYSQL ? "FLOAT" : "REAL";
}

/* The UUID kinds make the indexes UNIQUE like seed 004's; the primary key as
 * last column supplies the uniqueness (InnoDB stores it in every secondary
 * index anyway), while each insert now pays the engine's uniqueness check. */
static void index_columns(struct textbuf *b, const struct secondary_index *ix, enum pk_kind pk)
{
	textbuf_printf(b, "(%s%s)", ix->columns, pk == PK_AUTOINC ? "" : ", transactionid");
}

static void create_purchases_mysql(struct textbuf *b, enum pk_kind pk, const char *engine)
{
	textbuf_printf(b,
		       "CREATE TABLE " PURCHASES_TABLE " (\n"
		       "  transactionid %s,\n"
		       "  dateandtime DATETIME DEFAULT NULL,\n"
		       "  cashregisterid INT NOT NULL,\n"
		       "  customerid INT NOT NULL,\n"
		       "  productid INT NOT NULL,\n"
		       "  price FLOAT NOT NULL,\n"
		       "  PRIMARY KEY (transactionid)",
		       pk_column_type(DB_MYSQL, pk));
	for (size_t i = 0; i < 3; i++) {
		textbuf_printf(b, ",\n  %sKEY %s ", pk == PK_AUTOINC ? "" : "UNIQUE ",
			       purchase_indexes[i].name);
		index_columns(b, &purchase_indexes[i], pk);
	}
	textbuf_printf(b, "\n) ENGINE=%s DEFAULT CHARSET=latin1", engine);
}

void schema_purchases(struct ddl_script *s, enum db_kind dialect, enum pk_kind pk,
		      const char *engine)
{
	struct textbuf b = {0};
	textbuf_puts(&b, "DROP TABLE IF EXISTS " PURCHASES_TABLE);
	add_statement(s, &b);
	if (dialect == DB_MYSQL) {
		create_purchases_mysql(&b, pk, engine);
		add_statement(s, &b);
		return;
	}
	textbuf_printf(&b,
		       "CREATE TABLE " PURCHASES_TABLE " (\n"
		       "  transactionid %s,\n"
		       "  dateandtime %s,\n"
		       "  cashregisterid INTEGER NOT NULL,\n"
		       "  customerid INTEGER NOT NULL,\n"
		       "  productid INTEGER NOT NULL,\n"
		       "  price %s NOT NULL",
		       pk_column_type(dialect, pk), datetime_type(dialect), float_type(dialect));
	if (dialect == DB_POSTGRESQL)
		textbuf_puts(&b, ",\n  PRIMARY KEY (transactionid)");
	/* SQLite: a UUID key clusters the rows like InnoDB only WITHOUT ROWID. */
	textbuf_puts(&b, dialect == DB_SQLITE && pk != PK_AUTOINC ? "\n) WITHOUT ROWID" : "\n)");
	add_statement(s, &b);
	for (size_t i = 0; i < 3; i++) {
		textbuf_printf(&b, "CREATE %sINDEX %s ON " PURCHASES_TABLE " ",
			       pk == PK_AUTOINC ? "" : "UNIQUE ", purchase_indexes[i].name);
		index_columns(&b, &purchase_indexes[i], pk);
		add_statement(s, &b);
	}
}

static void load_table_columns(struct textbuf *b, enum db_kind dialect, unsigned keys,
			       unsigned row_length)
{
	const char *key_type = dialect == DB_MYSQL ? "BIGINT UNSIGNED" : dialect == DB_POSTGRESQL
			       ? "BIGINT" : "INTEGER";
	textbuf_puts(b, "CREATE TABLE " LOAD_TABLE " (\n");
	for (unsigned k = 0; k < keys; k++)
		textbuf_printf(b, "  val%u %s NOT NULL%s,\n", k, key_type,
			       k == 0 && dialect == DB_SQLITE ? " PRIMARY KEY" : "");
	textbuf_printf(b, "  pad VARCHAR(%u) NOT NULL", row_length - 8 * keys);
}

void schema_load_table(struct ddl_script *s, enum db_kind dialect, unsigned keys,
		       unsigned row_length, const char *engine, int with_drop)
{
	struct textbuf b = {0};
	if (with_drop) {
		textbuf_puts(&b, "DROP TABLE IF EXISTS " LOAD_TABLE);
		add_statement(s, &b);
	}
	load_table_columns(&b, dialect, keys, row_length);
	if (dialect == DB_MYSQL) {
		textbuf_puts(&b, ",\n  PRIMARY KEY (val0)");
		for (unsigned k = 1; k < keys; k++)
			textbuf_printf(&b, ",\n  KEY valkey%u (val%u)", k, k);
		textbuf_printf(&b, "\n) ENGINE=%s", engine);
		add_statement(s, &b);
		return;
	}
	textbuf_puts(&b, dialect == DB_POSTGRESQL ? ",\n  PRIMARY KEY (val0)\n)" : "\n)");
	add_statement(s, &b);
	for (unsigned k = 1; k < keys; k++) {
		textbuf_printf(&b, "CREATE INDEX valkey%u ON " LOAD_TABLE " (val%u)", k, k);
		add_statement(s, &b);
	}
}

char *fmt_pk_literal(char *p, enum db_kind dialect, enum pk_kind pk, const uint8_t uuid[16])
{
	if (pk == PK_UUID_CHAR) {
		*p++ = '\'';
		p = fmt_uuid(p, uuid);
		*p++ = '\'';
		return p;
	}
	/* BINARY(16) / BYTEA / BLOB literals. */
	if (dialect == DB_POSTGRESQL) {
		memcpy(p, "'\\x", 3);
		p = fmt_hex(p + 3, uuid, 16);
		*p++ = '\'';
		return p;
	}
	if (dialect == DB_MYSQL) {
		memcpy(p, "0x", 2);
		return fmt_hex(p + 2, uuid, 16);
	}
	memcpy(p, "X'", 2);
	p = fmt_hex(p + 2, uuid, 16);
	*p++ = '\'';
	return p;
}

/* Room for the longest row: '(' + a 38-char key + a 21-char date + three
 * 10-digit integers + a price + separators. */
#define MAX_ROW_TEXT 128

void sql_insert_purchases(struct textbuf *b, enum db_kind dialect, enum pk_kind pk,
			  const struct purchase_row *rows, size_t n, struct datetime_cache *dc)
{
	textbuf_puts(b, pk == PK_AUTOINC
			 ? "INSERT INTO " PURCHASES_TABLE
			   " (dateandtime,cashregisterid,customerid,productid,price) VALUES "
			 : "INSERT INTO " PURCHASES_TABLE
			   " (transactionid,dateandtime,cashregisterid,customerid,productid,price) VALUES ");
	textbuf_reserve(b, n * MAX_ROW_TEXT);
	char *p = b->data + b->len;
	for (size_t i = 0; i < n; i++) {
		const struct purchase_row *r = &rows[i];
		if (!dc->valid || dc->epoch != r->dateandtime) {
			format_datetime(r->dateandtime, dc->text);
			dc->epoch = r->dateandtime;
			dc->valid = 1;
		}
		if (i)
			*p++ = ',';
		*p++ = '(';
		if (pk != PK_AUTOINC) {
			p = fmt_pk_literal(p, dialect, pk, r->uuid);
			*p++ = ',';
		}
		*p++ = '\'';
		memcpy(p, dc->text, DATETIME_TEXT_LEN);
		p += DATETIME_TEXT_LEN;
		*p++ = '\'';
		*p++ = ',';
		p = fmt_u64(p, r->cashregisterid);
		*p++ = ',';
		p = fmt_u64(p, r->customerid);
		*p++ = ',';
		p = fmt_u64(p, r->productid);
		*p++ = ',';
		p = fmt_price_cents(p, r->price_cents);
		*p++ = ')';
	}
	*p = '\0';
	b->len = (size_t)(p - b->data);
}

static const char *index_hint(enum db_kind dialect, const char *index)
{
	if (dialect != DB_MYSQL)
		return "";
	if (strcmp(index, "PRIMARY") == 0)
		return " FORCE INDEX (PRIMARY)";
	if (strcmp(index, "marketsegment") == 0)
		return " FORCE INDEX (marketsegment)";
	if (strcmp(index, "registersegment") == 0)
		return " FORCE INDEX (registersegment)";
	return " FORCE INDEX (pdc)";
}

void sql_secondary_query(struct textbuf *b, enum db_kind dialect, unsigned which, uint64_t r)
{
	char price[16];
	/* A price anywhere in 0..1004.98, in cents. */
	*fmt_price_cents(price, (uint32_t)(((r >> 32) * 100499) >> 32)) = '\0';
	const char *name = purchase_indexes[which % SECONDARY_QUERY_KINDS].name;
	switch (which % SECONDARY_QUERY_KINDS) {
	case 0:
		textbuf_printf(b, "SELECT price, customerid FROM " PURCHASES_TABLE "%s "
				  "WHERE price >= %s ORDER BY price, customerid LIMIT 10",
			       index_hint(dialect, name), price);
		break;
	case 1:
		textbuf_printf(b, "SELECT cashregisterid, price, customerid FROM " PURCHASES_TABLE
				  "%s WHERE cashregisterid >= %u "
				  "ORDER BY cashregisterid, price, customerid LIMIT 10",
			       index_hint(dialect, name), (unsigned)(r % 1000));
		break;
	default:
		textbuf_printf(b, "SELECT price, dateandtime, customerid FROM " PURCHASES_TABLE "%s "
				  "WHERE price >= %s ORDER BY price, dateandtime, customerid LIMIT 10",
			       index_hint(dialect, name), price);
	}
}

void sql_range_scan(struct textbuf *b, enum db_kind dialect)
{
	/* Seed 004's "id < (SELECT MAX(id) ...)", written with ORDER BY because
	 * PostgreSQL has no MAX(bytea). */
	textbuf_printf(b, "SELECT COUNT(*), SUM(price) FROM " PURCHASES_TABLE "%s "
			  "WHERE transactionid < (SELECT transactionid FROM " PURCHASES_TABLE
			  " ORDER BY transactionid DESC LIMIT 1)",
		       index_hint(dialect, "PRIMARY"));
}
