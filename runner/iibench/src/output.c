#include "output.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER;

void output_line(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&output_lock);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&output_lock);
}

void report_comment(const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	output_line("# %s\n", line);
}
