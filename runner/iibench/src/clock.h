/* Monotonic time and interruptible sleeps. */
#ifndef IIBENCH_CLOCK_H
#define IIBENCH_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock: immune to NTP steps during a long run. */
static inline double clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps until the monotonic time `deadline`, in short slices so that a
 * stop request (SIGTERM) is noticed within 50 ms even during a long throttle
 * pause. Returns early when stop_requested() becomes true. */
void clock_sleep_until(double deadline);

/* Same, for a duration in seconds. */
void clock_sleep_for(double seconds);

#endif
