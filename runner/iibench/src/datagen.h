/* The iiBench row generator (2008 contest, docs/seeds/000) and the bulk-load key
 * generator (seeds/003).
 *
 * Every value is a pure function of (seed, global row index): the generator
 * is a splitmix64 stream read at position row*VALUES_PER_ROW + column. So the
 * rows do not depend on how many writers share the work or on batch sizes,
 * and any writer can generate any block without coordination. */
#ifndef IIBENCH_DATAGEN_H
#define IIBENCH_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

/* The contest's pseudo clock: dateandtime advances 1 s every 100,000 rows. */
#define ROWS_PER_PSEUDO_SECOND 100000

enum pk_kind {
	PK_AUTOINC,      /* INT AUTO_INCREMENT: the classic table */
	PK_UUID_CHAR,    /* CHAR(36) random type-4 UUID (seed 004) */
	PK_UUID_ORDERED, /* BINARY(16) type-1 UUID, time fields re-ordered (seed 004) */
};

const char *pk_kind_name(enum pk_kind pk);

struct purchase_row {
	int64_t dateandtime;     /* seconds since the epoch (UTC arithmetic) */
	uint32_t cashregisterid; /* 0..999 */
	uint32_t customerid;     /* 0..99,999 */
	uint32_t productid;      /* 0..9,999 */
	uint32_t price_cents;    /* customerid/100 + 0..4.99, in cents */
	uint8_t uuid[16];        /* the primary key for the UUID kinds */
};

struct purchase_generator {
	uint64_t stream;         /* splitmix64 origin derived from the seed */
	int64_t start_time;
	enum pk_kind pk;
	uint8_t uuid_tail[8];    /* type-1 clock_seq and node: fixed per run */
};

void purchase_generator_init(struct purchase_generator *g, uint64_t seed,
			     int64_t start_time, enum pk_kind pk);

/* Fills rows[0..n) with global rows first_row..first_row+n-1. */
void purchase_generator_fill(const struct purchase_generator *g, uint64_t first_row,
			     struct purchase_row *rows, size_t n);

/* Bulk-load keys (seed 003): random 8-byte keys. They stay below 2^63 so they
 * fit every backend's BIGINT (PostgreSQL and SQLite have no unsigned one). */
#define LOAD_KEY_MASK ((UINT64_C(1) << 63) - 1)

/* The primary key of row i: a bijection of i, hence unique without a hash set. */
uint64_t load_primary_key(uint64_t stream, uint64_t row);
/* The other random values of row i (secondary keys and pad text). */
uint64_t load_random(uint64_t stream, uint64_t row, unsigned column);
uint64_t seed_stream(uint64_t seed);
/* The n-th value of a splitmix64 stream (query parameters, pad text). */
uint64_t stream_value(uint64_t stream, uint64_t n);

#endif
