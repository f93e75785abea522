/* INSERT response times of one report interval: a log-linear histogram that writers add to
 * with relaxed atomics and the reporter empties once per report line. */
#ifndef IIBENCH_LATENCY_H
#define IIBENCH_LATENCY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 128 buckets per power of two of nanoseconds (0.4% resolution) up to 2^46 ns (19 hours). */
#define LATENCY_SUB_BITS 7
#define LATENCY_BUCKETS (128 * 41)

struct latency_histogram {
	atomic_uint_fast64_t counts[LATENCY_BUCKETS];
	atomic_uint_fast64_t max_ns;
	/* Bit g: some bucket of the 128 of power g may be non-zero. A report then reads the few
	 * powers an interval's statements fell in, not all 41 (a fifth of a report's cost). */
	atomic_uint_fast64_t used_groups;
};

struct latency_summary {
	uint64_t statements;
	uint64_t p50_ns, p99_ns, max_ns;  /* p50 <= p99 <= max; max exact */
};

/* One statement's time; any thread. */
void latency_record(struct latency_histogram *h, uint64_t ns);

/* The interval's summary, and an empty histogram for the next; one thread at a time. */
struct latency_summary latency_take(struct latency_histogram *h);

#endif
