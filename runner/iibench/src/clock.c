#include "clock.h"

#include "runstate.h"

#define SLEEP_SLICE_S 0.05

void clock_sleep_until(double deadline)
{
	for (;;) {
		if (stop_requested())
			return;
		double left = deadline - clock_now();
		if (left <= 0)
			return;
		if (left > SLEEP_SLICE_S)
			left = SLEEP_SLICE_S;
		struct timespec ts = {
			.tv_sec = (time_t)left,
			.tv_nsec = (long)((left - (double)(time_t)left) * 1e9),
		};
		/* An interrupted sleep (EINTR: a signal) just re-checks the stop flag. */
		nanosleep(&ts, NULL);
	}
}

void clock_sleep_for(double seconds)
{
	clock_sleep_until(clock_now() + seconds);
}
