#include "runstate.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "textutil.h"

static atomic_int stop_flag;
static atomic_int stopping_signal;
static atomic_bool failed;
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;
static char failure_message[1024];

/* Only lock-free atomics are touched here: async-signal-safe. */
static void on_stop_signal(int sig)
{
	int none = 0;
	atomic_compare_exchange_strong(&stopping_signal, &none, sig);
	atomic_store(&stop_flag, 1);
}

void runstate_install_signal_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* SA_RESTART: a signal must not make a client library's blocking read
	 * fail half-way through a batch; threads poll the flag between batches. */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

bool stop_requested(void)
{
	return atomic_load_explicit(&stop_flag, memory_order_relaxed) != 0;
}

int stop_signal(void)
{
	return atomic_load(&stopping_signal);
}

void run_fail(const char *message)
{
	pthread_mutex_lock(&failure_lock);
	if (!atomic_load(&failed)) {
		copy_one_line(failure_message, sizeof failure_message, message);
		atomic_store(&failed, true);
	}
	pthread_mutex_unlock(&failure_lock);
	atomic_store(&stop_flag, 1);
}

bool run_failed(void)
{
	return atomic_load(&failed);
}

const char *run_failure_message(void)
{
	return failure_message;
}
