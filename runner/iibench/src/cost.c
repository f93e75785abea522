#include "cost.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"
#include "report.h"
#include "schema.h"

/* -- reading /proc ------------------------------------------------------------------- */

/* open/read/close, not stdio: this runs several times per report line. */
static int read_small_file(const char *path, char *out, size_t outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, out, outlen - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = '\0';
	return 0;
}

struct proc_stat {
	pid_t ppid;
	unsigned long long utime, stime, cutime, cstime;  /* clock ticks */
	char comm[64];
};

/* /proc/PID/stat: the command sits in parentheses and may hold blanks, so
 * the fields are counted from the last ')'. */
static int read_proc_stat(pid_t pid, struct proc_stat *st)
{
	char path[64], text[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (read_small_file(path, text, sizeof text) != 0)
		return -1;
	char *open = strchr(text, '('), *close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -1;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof st->comm)
		n = sizeof st->comm - 1;
	memcpy(st->comm, open + 1, n);
	st->comm[n] = '\0';
	int ppid;
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime */
	if (sscanf(close + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
		   &ppid, &st->utime, &st->stime, &st->cutime, &st->cstime) != 5)
		return -1;
	st->ppid = (pid_t)ppid;
	return 0;
}

/* The live children of pid (PostgreSQL's backends and helpers). */
static size_t list_children(pid_t pid, pid_t *out, size_t max)
{
	char path[64], text[16384];
	size_t count = 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if (read_small_file(path, text, sizeof text) == 0) {
		for (char *p = text; *p && count < max;) {
			char *end;
			long child = strtol(p, &end, 10);
			if (end == p)
				break;
			out[count++] = (pid_t)child;
			p = end;
		}
		return count;
	}
	/* Kernels without the children file: scan /proc for the parent. */
	DIR *dir = opendir("/proc");
	struct dirent *entry;
	while (dir && (entry = readdir(dir)) && count < max) {
		struct proc_stat st;
		if (isdigit((unsigned char)entry->d_name[0])
		    && read_proc_stat((pid_t)atoi(entry->d_name), &st) == 0 && st.ppid == pid)
			out[count++] = (pid_t)atoi(entry->d_name);
	}
	if (dir)
		closedir(dir);
	return count;
}

/* A process's resident pages, private and shared, from /proc/PID/statm (the cheapest of the
 * files that split them: status costs twice as much, smaps_rollup walks the page tables,
 * 7 ms for a MariaDB with its buffer pool). */
struct resident {
	unsigned long long private_pages, shared_pages;
};

static int read_resident(pid_t pid, struct resident *r)
{
	char path[64], text[256];
	unsigned long long size, resident, shared;
	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	if (read_small_file(path, text, sizeof text) != 0
	    || sscanf(text, "%llu %llu %llu", &size, &resident, &shared) != 3)
		return -1;
	r->shared_pages = shared;
	r->private_pages = resident > shared ? resident - shared : 0;
	return 0;
}

/* Private pages add up over the processes; shared ones (files, PostgreSQL's shared buffers)
 * are mapped by them all, so the largest count stands for all: counted once, roughly. */
static void add_resident(struct resident *sum, const struct resident *r)
{
	sum->private_pages += r->private_pages;
	if (r->shared_pages > sum->shared_pages)
		sum->shared_pages = r->shared_pages;
}

#define MAX_SERVER_CHILDREN 4096

/* CPU of the server and every process it started: its own time, what its
 * exited children left it (cutime/cstime), and its live children's time. */
static void read_server(pid_t pid, struct cost_totals *t)
{
	static pid_t children[MAX_SERVER_CHILDREN];
	struct proc_stat st;
	if (pid <= 0 || read_proc_stat(pid, &st) != 0)
		return;
	unsigned long long ticks = st.utime + st.stime + st.cutime + st.cstime;
	struct resident sum = {0}, one;
	bool has_memory = read_resident(pid, &one) == 0;
	if (has_memory)
		add_resident(&sum, &one);
	size_t n = list_children(pid, children, MAX_SERVER_CHILDREN);
	for (size_t i = 0; i < n; i++) {
		struct proc_stat child;
		if (read_proc_stat(children[i], &child) != 0)
			continue;
		ticks += child.utime + child.stime + child.cutime + child.cstime;
		if (has_memory && read_resident(children[i], &one) == 0)
			add_resident(&sum, &one);
	}
	t->has_server_cpu = true;
	t->server_cpu_s = (double)ticks / (double)sysconf(_SC_CLK_TCK);
	t->has_server_rss = has_memory;
	t->server_rss_bytes = (uint64_t)(sum.private_pages + sum.shared_pages)
			      * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The device's line of /proc/diskstats, from /sys/dev/block/M:m/stat (one device, not
 * all of them); sectors are 512 bytes whatever the device's own size. */
static void read_disk(const struct cost_probe *probe, struct cost_totals *t)
{
	char path[64], text[512];
	unsigned long long reads, sectors_read, writes, sectors_written;
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/stat", probe->device_major,
		 probe->device_minor);
	if (read_small_file(path, text, sizeof text) != 0
	    || sscanf(text, " %llu %*u %llu %*u %llu %*u %llu", &reads, &sectors_read, &writes,
		      &sectors_written) != 4)
		return;
	t->has_disk = true;
	t->read_ops = reads;
	t->write_ops = writes;
	t->read_bytes = sectors_read * 512;
	t->write_bytes = sectors_written * 512;
}

void cost_record_statement(struct cost_probe *probe, double seconds)
{
	if (!probe || !probe->enabled)
		return;
	latency_record(&probe->latency, seconds > 0 ? (uint64_t)(seconds * 1e9) : 0);
	atomic_fetch_add_explicit(&probe->statements, 1, memory_order_relaxed);
}

/* -- asking the server --------------------------------------------------------------- */

struct first_value {
	char text[4096];
	bool found;
};

static void keep_first_value(void *ctx, unsigned ncols, const char *const *values)
{
	struct first_value *v = ctx;
	if (v->found || ncols == 0 || !values[0])
		return;
	snprintf(v->text, sizeof v->text, "%s", values[0]);
	v->found = true;
}

static bool select_text(const struct cost_probe *probe, const char *sql, char *out, size_t outlen)
{
	struct first_value v = {.found = false};
	if (probe->backend->select_rows(probe->control, sql, keep_first_value, &v) != 0 || !v.found)
		return false;
	snprintf(out, outlen, "%s", v.text);
	return true;
}

static bool select_u64(const struct cost_probe *probe, const char *sql, uint64_t *out)
{
	char text[64], *end;
	if (!select_text(probe, sql, text, sizeof text))
		return false;
	unsigned long long v = strtoull(text, &end, 10);
	if (end == text)
		return false;
	*out = v;
	return true;
}

/* InnoDB's file for the table (exact and current); the table status
 * (data + index length) for other engines. */
static const char *const mysql_size_queries[] = {
	"SELECT file_size FROM information_schema.innodb_sys_tablespaces "
	"WHERE name = CONCAT(DATABASE(), '/" PURCHASES_TABLE "')",
	"SELECT data_length + index_length FROM information_schema.tables "
	"WHERE table_schema = DATABASE() AND table_name = '" PURCHASES_TABLE "'",
	NULL,
};
static const char *const pg_size_queries[] = {
	"SELECT pg_total_relation_size('" PURCHASES_TABLE "')",
	NULL,
};
static const char *const sqlite_size_queries[] = {
	/* Pages in use: a file reused by an earlier run keeps its free pages. */
	"SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), "
	"pragma_freelist_count(), pragma_page_size()",
	NULL,
};

static void read_size(struct cost_probe *probe, struct cost_totals *t)
{
	const char *const *queries = probe->backend->kind == DB_MYSQL	     ? mysql_size_queries
				     : probe->backend->kind == DB_POSTGRESQL ? pg_size_queries
									     : sqlite_size_queries;
	/* The query that answered last time first: a BLACKHOLE table has no InnoDB file. */
	size_t first = probe->size_query;
	if ((t->has_size = select_u64(probe, queries[first], &t->db_size_bytes)))
		return;
	for (size_t i = 0; queries[i]; i++)
		if (i != first && (t->has_size = select_u64(probe, queries[i], &t->db_size_bytes))) {
			probe->size_query = i;
			return;
		}
}

static bool host_is_local(const struct db_url *url)
{
	const char *h = url->host;
	return h[0] == '\0' || h[0] == '/' || strcmp(h, "localhost") == 0
	       || strncmp(h, "127.", 4) == 0 || strcmp(h, "::1") == 0;
}

static bool comm_is(pid_t pid, const char *const *names)
{
	struct proc_stat st;
	if (read_proc_stat(pid, &st) != 0)
		return false;
	for (size_t i = 0; names[i]; i++)
		if (strcmp(st.comm, names[i]) == 0)
			return true;
	return false;
}

/* MariaDB/MySQL: the pid file the server names; PostgreSQL: the parent of
 * this connection's backend (the postmaster). */
static pid_t find_server_pid(const struct cost_probe *probe)
{
	static const char *const mysql_names[] = {"mariadbd", "mysqld", NULL};
	static const char *const pg_names[] = {"postgres", "postmaster", NULL};
	char text[4096], content[64];
	uint64_t backend_pid;
	if (probe->backend->kind == DB_MYSQL) {
		if (!select_text(probe, "SELECT @@pid_file", text, sizeof text)
		    || read_small_file(text, content, sizeof content) != 0)
			return 0;
		pid_t pid = (pid_t)atol(content);
		return pid > 0 && comm_is(pid, mysql_names) ? pid : 0;
	}
	if (probe->backend->kind == DB_POSTGRESQL) {
		struct proc_stat st;
		if (!select_u64(probe, "SELECT pg_backend_pid()", &backend_pid)
		    || !comm_is((pid_t)backend_pid, pg_names)
		    || read_proc_stat((pid_t)backend_pid, &st) != 0)
			return 0;
		return comm_is(st.ppid, pg_names) ? st.ppid : 0;
	}
	return 0;
}

static bool find_data_dir(struct cost_probe *probe, const struct db_url *url)
{
	char *slash;
	switch (probe->backend->kind) {
	case DB_SQLITE:
		if (!realpath(url->path, probe->data_dir))
			return false;
		if ((slash = strrchr(probe->data_dir, '/')) && slash != probe->data_dir)
			*slash = '\0';
		return true;
	case DB_MYSQL:
		return select_text(probe, "SELECT @@datadir", probe->data_dir, sizeof probe->data_dir);
	case DB_POSTGRESQL:
		return select_text(probe, "SELECT current_setting('data_directory')",
				   probe->data_dir, sizeof probe->data_dir);
	}
	return false;
}

static void find_device(struct cost_probe *probe, const struct db_url *url)
{
	struct stat st;
	if (!find_data_dir(probe, url) || stat(probe->data_dir, &st) != 0)
		return;
	probe->device_major = major(st.st_dev);
	probe->device_minor = minor(st.st_dev);
	struct cost_totals t = {0};
	read_disk(probe, &t);
	probe->has_device = t.has_disk;
}

/* -- the probe ----------------------------------------------------------------------- */

static void read_totals(struct cost_probe *probe, struct cost_totals *t)
{
	struct rusage ru;
	memset(t, 0, sizeof *t);
	getrusage(RUSAGE_SELF, &ru);
	t->client_cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
			  + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	read_server(probe->server_pid, t);
	if (probe->has_device)
		read_disk(probe, t);
	read_size(probe, t);
}

void cost_probe_init(struct cost_probe *probe, bool enabled, const struct backend *backend,
		     struct db_conn *control, const struct db_url *url, long server_pid)
{
	memset(probe, 0, sizeof *probe);
	probe->enabled = enabled;
	probe->backend = backend;
	probe->control = control;
	if (!enabled) {
		cost_report_probe(probe);
		return;
	}
	bool local = backend->kind == DB_SQLITE || host_is_local(url) || server_pid > 0;
	if (server_pid > 0)
		probe->server_pid = (pid_t)server_pid;
	else if (local)
		probe->server_pid = find_server_pid(probe);
	/* A remote server's data directory names nothing on this host. */
	if (local && (backend->kind == DB_SQLITE || probe->server_pid > 0))
		find_device(probe, url);
	cost_report_probe(probe);
}

void cost_report_probe(const struct cost_probe *probe)
{
	char pid[32] = "-", device[32] = "-";
	if (probe->server_pid > 0)
		snprintf(pid, sizeof pid, "%d", (int)probe->server_pid);
	if (probe->has_device)
		snprintf(device, sizeof device, "%u:%u", probe->device_major, probe->device_minor);
	/* data_dir comes last: a path may hold blanks. */
	report_comment("cost measured=%s server_pid=%s device=%s data_dir=%s",
		       probe->enabled ? "yes" : "no", pid, device,
		       probe->data_dir[0] ? probe->data_dir : "-");
}

static double thread_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of one timed statement's bookkeeping (two clock readings and the histogram),
 * measured on this machine: the latency cannot time itself without changing it. */
static double calibrate_statement_cost(struct cost_probe *probe)
{
	enum { CALLS = 20000 };
	double start = thread_cpu_now();
	for (int i = 0; i < CALLS; i++) {
		double sent = clock_now();
		cost_record_statement(probe, clock_now() - sent);
	}
	return (thread_cpu_now() - start) / CALLS;
}

void cost_probe_start(struct cost_probe *probe)
{
	if (!probe->enabled)
		return;
	probe->statement_cpu_s = calibrate_statement_cost(probe);
	latency_take(&probe->latency);
	atomic_store(&probe->statements, 0);
	read_totals(probe, &probe->last);
}

void cost_report_overhead(const struct cost_probe *probe)
{
	if (!probe || !probe->enabled)
		return;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double client = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
			+ (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	double spent = probe->report_cpu_s
		       + probe->statement_cpu_s * (double)atomic_load(&probe->statements);
	report_comment("cost_overhead seconds=%.6f share_of_client_cpu=%.5f", spent,
		       client > 0 ? spent / client : 0.0);
}

static void append(char *out, size_t outlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *out, size_t outlen, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out + n, outlen - n, fmt, ap);
	va_end(ap);
}

static void append_delta(char *out, size_t outlen, bool has, uint64_t now, uint64_t before)
{
	if (has)
		append(out, outlen, "\t%llu", (unsigned long long)(now > before ? now - before : 0));
	else
		append(out, outlen, "\t-");
}

void cost_format_columns(struct cost_probe *probe, char *out, size_t outlen)
{
	out[0] = '\0';
	if (!probe->enabled) {
		for (int i = 0; i < 11; i++)
			append(out, outlen, "\t-");
		return;
	}
	double started = thread_cpu_now();
	struct latency_summary lat = latency_take(&probe->latency);
	if (lat.statements)
		append(out, outlen, "\t%.3f\t%.3f\t%.3f", (double)lat.p50_ns * 1e-6,
		       (double)lat.p99_ns * 1e-6, (double)lat.max_ns * 1e-6);
	else
		append(out, outlen, "\t-\t-\t-");
	struct cost_totals now, *was = &probe->last;
	read_totals(probe, &now);
	double client = now.client_cpu_s - was->client_cpu_s;
	append(out, outlen, "\t%.3f", client > 0 ? client : 0.0);
	if (now.has_server_cpu && was->has_server_cpu) {
		double server = now.server_cpu_s - was->server_cpu_s;
		append(out, outlen, "\t%.3f", server > 0 ? server : 0.0);
	} else {
		append(out, outlen, "\t-");
	}
	if (now.has_server_rss)
		append(out, outlen, "\t%llu", (unsigned long long)now.server_rss_bytes);
	else
		append(out, outlen, "\t-");
	bool disk = now.has_disk && was->has_disk;
	append_delta(out, outlen, disk, now.read_bytes, was->read_bytes);
	append_delta(out, outlen, disk, now.write_bytes, was->write_bytes);
	append_delta(out, outlen, disk, now.read_ops, was->read_ops);
	append_delta(out, outlen, disk, now.write_ops, was->write_ops);
	if (now.has_size)
		append(out, outlen, "\t%llu", (unsigned long long)now.db_size_bytes);
	else
		append(out, outlen, "\t-");
	/* A quantity missing now makes the next interval's difference "-" too:
	 * it would otherwise span two intervals. */
	*was = now;
	probe->report_cpu_s += thread_cpu_now() - started;
}
