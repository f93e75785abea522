#include "report.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"
#include "options.h"
#include "output.h"
#include "url.h"

static void append_arg(char *out, size_t outlen, const char *arg)
{
	size_t n = strlen(out);
	/* Arguments with blanks are quoted so the line splits back correctly. */
	const char *quote = strpbrk(arg, " \t") ? "'" : "";
	snprintf(out + n, outlen - n, " %s%s%s", quote, arg, quote);
}

void report_begin(int argc, char **argv)
{
	char command[8192] = "iibench";
	char masked[4096];
	output_line("# iibench-c version=%s format=%d\n", IIBENCH_VERSION, IIBENCH_FORMAT);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (i > 1 && strcmp(argv[i - 1], "--db") == 0) {
			db_url_masked(arg, masked, sizeof masked);
			arg = masked;
		} else if (strncmp(arg, "--db=", 5) == 0) {
			db_url_masked(arg + 5, masked + 5, sizeof masked - 5);
			memcpy(masked, "--db=", 5);
			arg = masked;
		}
		append_arg(command, sizeof command, arg);
	}
	output_line("# command %s\n", command);
}

void report_param_u64(const char *name, uint64_t value)
{
	output_line("# param %s=%llu\n", name, (unsigned long long)value);
}

void report_param_str(const char *name, const char *value)
{
	output_line("# param %s=%s\n", name, value);
}

void report_indexes(const char *table, const struct index_info *indexes, size_t count)
{
	output_line("# table %s\n", table);
	/* Read back from the catalog before the first row: always before_load. */
	for (size_t i = 0; i < count; i++)
		output_line("# index %s columns=%s unique=%s created=before_load\n", indexes[i].name,
		     indexes[i].columns, indexes[i].unique ? "yes" : "no");
}

void report_started(bool with_columns)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	output_line("# started %s\n", when);
	if (with_columns)
		output_line("rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps"
		     "\tqueries\tinterval_qps\t" COST_COLUMNS "\n");
}

static double timeval_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

void report_client_cpu(uint64_t rows)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double user = timeval_seconds(ru.ru_utime), sys = timeval_seconds(ru.ru_stime);
	output_line("# client_cpu seconds=%.3f user=%.3f sys=%.3f us_per_row=%.3f\n", user + sys, user,
	     sys, rows ? (user + sys) * 1e6 / (double)rows : 0.0);
}

double report_seconds(double seconds, uint64_t rows)
{
	double ms = floor(seconds * 1000.0 + 0.5) / 1000.0;
	/* Never 0.000 once a row is in: a rate is then always defined. */
	if (rows > 0 && ms < 0.001)
		ms = 0.001;
	return ms;
}

static double rate(uint64_t count, double seconds)
{
	return seconds > 0 ? (double)count / seconds : 0.0;
}

void progress_init(struct progress *p, uint64_t report_every, double t0)
{
	memset(p, 0, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	p->t0 = t0;
	p->report_every = report_every;
	p->next_report = report_every;
	atomic_init(&p->queries, 0);
}

/* Caller holds p->lock. */
static void print_report(struct progress *p, double now, uint64_t queries)
{
	double seconds = report_seconds(now - p->t0, p->rows);
	double interval = seconds - p->last_seconds;
	char cost[512] = "";
	if (p->cost)
		cost_format_columns(p->cost, cost, sizeof cost);
	output_line("%llu\t%.3f\t%.1f\t%.1f\t%llu\t%.1f\t%llu\t%.1f%s\n", (unsigned long long)p->rows,
	     seconds, rate(p->rows - p->last_rows, interval), rate(p->rows, seconds),
	     (unsigned long long)p->deleted, rate(p->deleted - p->last_deleted, interval),
	     (unsigned long long)queries, rate(queries - p->last_queries, interval), cost);
	p->last_rows = p->rows;
	p->last_deleted = p->deleted;
	p->last_queries = queries;
	p->last_seconds = seconds;
	p->printed_any = true;
}

void progress_commit(struct progress *p, uint64_t rows, uint64_t deleted)
{
	pthread_mutex_lock(&p->lock);
	p->rows += rows;
	p->deleted += deleted;
	p->last_commit_at = clock_now();
	p->queries_at_last_commit = atomic_load(&p->queries);
	if (p->rows >= p->next_report) {
		print_report(p, p->last_commit_at, p->queries_at_last_commit);
		while (p->next_report <= p->rows)
			p->next_report += p->report_every;
	}
	pthread_mutex_unlock(&p->lock);
}

void progress_final_line(struct progress *p, double t_end, uint64_t queries)
{
	pthread_mutex_lock(&p->lock);
	if (!p->printed_any || p->rows != p->last_rows)
		print_report(p, t_end, queries);
	pthread_mutex_unlock(&p->lock);
}

void report_summary(const struct run_totals *t)
{
	double seconds = report_seconds(t->seconds, t->rows);
	char head[64];
	if (t->status == RUN_COMPLETED)
		snprintf(head, sizeof head, "status=completed");
	else if (t->status == RUN_STOPPED)
		snprintf(head, sizeof head, "status=stopped reason=%s",
			 t->signal == SIGINT ? "SIGINT" : "SIGTERM");
	else
		snprintf(head, sizeof head, "status=failed");
	/* error= comes last: its value runs to the end of the line. */
	output_line("# summary %s rows=%llu seconds=%.3f average_ips=%.1f deleted=%llu queries=%llu%s%s\n",
	     head, (unsigned long long)t->rows, seconds, rate(t->rows, seconds),
	     (unsigned long long)t->deleted, (unsigned long long)t->queries,
	     t->status == RUN_FAILED ? " error=" : "", t->status == RUN_FAILED ? t->error : "");
}
