#include "latency.h"

static size_t latency_bucket(uint64_t ns)
{
	if (ns < (1u << LATENCY_SUB_BITS))
		return (size_t)ns;
	unsigned top = 63u - (unsigned)__builtin_clzll(ns);
	unsigned shift = top - LATENCY_SUB_BITS;
	size_t index = (size_t)(shift + 1) * 128 + (size_t)((ns >> shift) - 128);
	return index < LATENCY_BUCKETS ? index : LATENCY_BUCKETS - 1;
}

/* The middle of a bucket's range of nanoseconds. */
static uint64_t latency_bucket_value(size_t index)
{
	if (index < 128)
		return index;
	unsigned shift = (unsigned)(index / 128) - 1;
	uint64_t low = (uint64_t)(128 + index % 128) << shift;
	return low + ((UINT64_C(1) << shift) >> 1);
}

/* Takes the interval's counts out (a statement finishing meanwhile lands in
 * this interval or the next, never in none). The percentiles are bucket
 * middles capped at the exact maximum, so p50 <= p99 <= max always holds.
 * Only the powers of two that statements fell in are read (used_groups). */
struct latency_summary latency_take(struct latency_histogram *h)
{
	enum { GROUPS = LATENCY_BUCKETS / 128 };
	static uint64_t counts[LATENCY_BUCKETS];
	struct latency_summary s = {0};
	uint64_t groups = atomic_exchange(&h->used_groups, 0);
	for (size_t group = 0; group < GROUPS; group++) {
		if (!(groups & (UINT64_C(1) << group)))
			continue;
		for (size_t i = group * 128; i < (group + 1) * 128; i++) {
			/* A plain load first: most buckets are empty, and a locked exchange on
			 * each would cost more than the rest of the report. */
			counts[i] = atomic_load_explicit(&h->counts[i], memory_order_relaxed);
			if (counts[i])
				counts[i] = atomic_exchange_explicit(&h->counts[i], 0,
								     memory_order_relaxed);
			s.statements += counts[i];
		}
	}
	s.max_ns = atomic_exchange_explicit(&h->max_ns, 0, memory_order_relaxed);
	if (!s.statements)
		return s;
	uint64_t rank50 = (s.statements + 1) / 2, rank99 = (s.statements * 99 + 99) / 100;
	uint64_t seen = 0;
	bool have50 = false;
	for (size_t group = 0; group < GROUPS && seen < rank99; group++) {
		if (!(groups & (UINT64_C(1) << group)))
			continue;
		for (size_t i = group * 128; i < (group + 1) * 128; i++) {
			seen += counts[i];
			if (!have50 && seen >= rank50) {
				s.p50_ns = latency_bucket_value(i);
				have50 = true;
			}
			if (seen >= rank99) {
				s.p99_ns = latency_bucket_value(i);
				break;
			}
		}
	}
	if (s.p99_ns > s.max_ns)
		s.p99_ns = s.max_ns;
	if (s.p50_ns > s.p99_ns)
		s.p50_ns = s.p99_ns;
	return s;
}

void latency_record(struct latency_histogram *h, uint64_t ns)
{
	size_t bucket = latency_bucket(ns);
	uint64_t group = UINT64_C(1) << (bucket / 128);
	/* Sequentially consistent, with the report's exchange of the bits: a count added after
	 * the report cleared its bit sets the bit again, so it is never left unread. */
	atomic_fetch_add(&h->counts[bucket], 1);
	if (!(atomic_load(&h->used_groups) & group))
		atomic_fetch_or(&h->used_groups, group);
	uint64_t seen = atomic_load_explicit(&h->max_ns, memory_order_relaxed);
	while (ns > seen && !atomic_compare_exchange_weak_explicit(&h->max_ns, &seen, ns,
								   memory_order_relaxed,
								   memory_order_relaxed)) {
	}
}
