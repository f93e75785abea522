#include "datagen.h"

#include <string.h>

#define GOLDEN_GAMMA UINT64_C(0x9e3779b97f4a7c15)
#define VALUES_PER_ROW 8
/* Seconds from the Gregorian reform (the UUID epoch) to the Unix epoch. */
#define UUID_EPOCH_OFFSET_S INT64_C(12219292800)
/* A type-1 timestamp counts 100 ns ticks; 100 rows share one pseudo second,
 * so row k of a second gets tick k*100 and every row a distinct timestamp. */
#define TICKS_PER_ROW (10000000 / ROWS_PER_PSEUDO_SECOND)

const char *pk_kind_name(enum pk_kind pk)
{
	switch (pk) {
	case PK_AUTOINC:
		return "autoinc";
	case PK_UUID_CHAR:
		return "uuid-char";
	case PK_UUID_ORDERED:
		return "uuid-ordered";
	}
	return "?";
}

/* splitmix64's output function (Steele, Lea, Flood 2014): a bijection. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The n-th output of the splitmix64 stream starting at `stream`. */
static inline uint64_t stream_at(uint64_t stream, uint64_t n)
{
	return mix64(stream + (n + 1) * GOLDEN_GAMMA);
}

/* Uniform in [0, bound) by multiply-shift (Lemire): no division in the hot
 * loop; the bias is below 2^-32 for these small bounds. */
static inline uint32_t bounded(uint64_t r, uint32_t bound)
{
	return (uint32_t)(((r >> 32) * bound) >> 32);
}

uint64_t seed_stream(uint64_t seed)
{
	return mix64(seed ^ UINT64_C(0x6969626e656e6368)); /* "iibench" */
}

void purchase_generator_init(struct purchase_generator *g, uint64_t seed,
			     int64_t start_time, enum pk_kind pk)
{
	memset(g, 0, sizeof *g);
	g->stream = seed_stream(seed);
	g->start_time = start_time;
	g->pk = pk;
	/* RFC 4122 4.5: a random node id has the multicast bit set. */
	uint64_t r = mix64(g->stream ^ UINT64_C(0x4e4f4445)); /* "NODE" */
	g->uuid_tail[0] = (uint8_t)(0x80 | ((r >> 8) & 0x3f)); /* variant 10xx */
	g->uuid_tail[1] = (uint8_t)r;
	for (int i = 0; i < 6; i++)
		g->uuid_tail[2 + i] = (uint8_t)(r >> (16 + 8 * i));
	g->uuid_tail[2] |= 0x01;
}

static void random_uuid(uint8_t out[16], uint64_t a, uint64_t b)
{
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(a >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(b >> (56 - 8 * i));
	}
	out[6] = (uint8_t)((out[6] & 0x0f) | 0x40); /* version 4 */
	out[8] = (uint8_t)((out[8] & 0x3f) | 0x80); /* variant 10xx */
}

/* A type-1 UUID whose timestamp is the row's pseudo time, stored with
 * time_hi first, then time_mid, then time_low (the Percona "optimized" order)
 * so that keys increase with the row index. */
static void ordered_uuid(uint8_t out[16], const struct purchase_generator *g, uint64_t row)
{
	uint64_t seconds = (uint64_t)(g->start_time + UUID_EPOCH_OFFSET_S)
			   + row / ROWS_PER_PSEUDO_SECOND;
	uint64_t ts = seconds * 10000000 + (row % ROWS_PER_PSEUDO_SECOND) * TICKS_PER_ROW;
	uint16_t time_hi = (uint16_t)(((ts >> 48) & 0x0fff) | 0x1000); /* version 1 */
	uint16_t time_mid = (uint16_t)(ts >> 32);
	uint32_t time_low = (uint32_t)ts;
	out[0] = (uint8_t)(time_hi >> 8);
	out[1] = (uint8_t)time_hi;
	out[2] = (uint8_t)(time_mid >> 8);
	out[3] = (uint8_t)time_mid;
	for (int i = 0; i < 4; i++)
		out[4 + i] = (uint8_t)(time_low >> (24 - 8 * i));
	memcpy(out + 8, g->uuid_tail, 8);
}

void purchase_generator_fill(const struct purchase_generator *g, uint64_t first_row,
			     struct purchase_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t row = first_row + i;
		uint64_t base = row * VALUES_PER_ROW;
		struct purchase_row *r = &rows[i];
		r->dateandtime = g->start_time + (int64_t)(row / ROWS_PER_PSEUDO_SECOND);
		r->cashregisterid = bounded(stream_at(g->stream, base), 1000);
		r->customerid = bounded(stream_at(g->stream, base + 1), 100000);
		r->productid = bounded(stream_at(g->stream, base + 2), 10000);
		/* customerid/100 dollars is customerid cents; plus 0..4.99. */
		r->price_cents = r->customerid + bounded(stream_at(g->stream, base + 3), 500);
		if (g->pk == PK_UUID_CHAR)
			random_uuid(r->uuid, stream_at(g->stream, base + 4),
				    stream_at(g->stream, base + 5));
		else if (g->pk == PK_UUID_ORDERED)
			ordered_uuid(r->uuid, g, row);
	}
}

/* A bijection on [0, 2^63): xor-shifts and odd multipliers modulo 2^63 are
 * each invertible there, so distinct rows get distinct keys. */
static uint64_t mix63(uint64_t z)
{
	z &= LOAD_KEY_MASK;
	z = ((z ^ (z >> 31)) * UINT64_C(0xbf58476d1ce4e5b9)) & LOAD_KEY_MASK;
	z = ((z ^ (z >> 29)) * UINT64_C(0x94d049bb133111eb)) & LOAD_KEY_MASK;
	return z ^ (z >> 32);
}

uint64_t load_primary_key(uint64_t stream, uint64_t row)
{
	return mix63(row + stream);
}

uint64_t stream_value(uint64_t stream, uint64_t n)
{
	return stream_at(stream, n);
}

uint64_t load_random(uint64_t stream, uint64_t row, unsigned column)
{
	return stream_at(stream, row * 64 + column);
}
