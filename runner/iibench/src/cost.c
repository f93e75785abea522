#include "cost.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
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

/* A /proc or /sys file read at every report, kept open: a read from offset 0 makes the kernel
 * print it afresh, and saves the open's path lookup, which on this project's VM costs more than
 * the read itself. A descriptor that fails (its process exited) is opened once more by path:
 * the pid may belong to a new process now. */
static int read_kept_file(int *fd, const char *path, char *out, size_t outlen)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		if (*fd < 0 && (*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return -1;
		ssize_t n = pread(*fd, out, outlen - 1, 0);
		if (n >= 0) {
			out[n] = '\0';
			return 0;
		}
		close(*fd);
		*fd = -1;
	}
	return -1;
}

/* The same for a file whose path holds numbers (a pid, a device): the path is printed only
 * when the file has to be opened, not at every report. */
static int read_kept_numbered(int *fd, const char *format, unsigned a, unsigned b, char *out,
			      size_t outlen)
{
	char path[96];
	if (*fd >= 0) {
		ssize_t n = pread(*fd, out, outlen - 1, 0);
		if (n >= 0) {
			out[n] = '\0';
			return 0;
		}
		close(*fd);
		*fd = -1;
	}
	snprintf(path, sizeof path, format, a, b);
	return read_kept_file(fd, path, out, outlen);
}

static void close_kept_file(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

struct proc_stat {
	pid_t ppid;
	unsigned long long utime, stime, cutime, cstime;  /* clock ticks */
	unsigned long long rss;                           /* resident pages */
	char comm[64];
};

/* /proc/PID/stat: the command sits in parentheses and may hold blanks, so the fields are
 * counted from the last ')'. Parsed by hand: sscanf's reading of its format cost as much as
 * the kernel's printing of the file. */
static int parse_proc_stat(char *text, struct proc_stat *st)
{
	/* Fields after the command, from 0: state ppid pgrp session tty_nr tpgid flags minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime vsize rss. */
	enum { PPID = 1, UTIME = 11, STIME, CUTIME, CSTIME, RSS = 21 };
	char *open = strchr(text, '('), *close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -1;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof st->comm)
		n = sizeof st->comm - 1;
	memcpy(st->comm, open + 1, n);
	st->comm[n] = '\0';
	unsigned long long value[RSS + 1];
	const char *p = close + 1;
	for (int field = 0; field <= RSS; field++) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return -1;
		unsigned long long v = 0;
		for (; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (unsigned long long)(*p - '0');
		/* The state is a letter, tpgid and nice may be negative: never used. */
		while (*p && *p != ' ' && *p != '\n')
			p++;
		value[field] = v;
	}
	st->ppid = (pid_t)value[PPID];
	st->utime = value[UTIME];
	st->stime = value[STIME];
	st->cutime = value[CUTIME];
	st->cstime = value[CSTIME];
	st->rss = value[RSS];
	return 0;
}

static int read_proc_stat(pid_t pid, struct proc_stat *st)
{
	char path[64], text[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (read_small_file(path, text, sizeof text) != 0)
		return -1;
	return parse_proc_stat(text, st);
}

/* One server process's stat and statm, kept open between reports. */
static int read_kept_stat(struct server_process *p, struct proc_stat *st)
{
	char text[1024];
	if (read_kept_numbered(&p->stat_fd, "/proc/%u/stat", (unsigned)p->pid, 0, text,
			       sizeof text) != 0)
		return -1;
	return parse_proc_stat(text, st);
}

static void forget_process(struct server_process *p)
{
	close_kept_file(&p->stat_fd);
	close_kept_file(&p->statm_fd);
}

/* The live children of the server (PostgreSQL's backends and helpers). */
static size_t list_children(struct cost_probe *probe, pid_t *out, size_t max)
{
	static char text[65536];
	pid_t pid = probe->server.pid;
	size_t count = 0;
	if (read_kept_numbered(&probe->children_fd, "/proc/%u/task/%u/children", (unsigned)pid,
			       (unsigned)pid, text, sizeof text) == 0) {
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

/* The next decimal number of `*p`, blanks before it skipped; false if there is none. */
static bool next_number(const char **p, unsigned long long *out)
{
	const char *q = *p;
	while (*q == ' ' || *q == '\n')
		q++;
	if (*q < '0' || *q > '9')
		return false;
	unsigned long long v = 0;
	for (; *q >= '0' && *q <= '9'; q++)
		v = v * 10 + (unsigned long long)(*q - '0');
	*out = v;
	*p = q;
	return true;
}

static int read_resident(struct server_process *p, struct resident *r)
{
	char text[256];
	unsigned long long size, resident, shared;
	const char *q = text;
	if (read_kept_numbered(&p->statm_fd, "/proc/%u/statm", (unsigned)p->pid, 0, text,
			       sizeof text) != 0
	    || !next_number(&q, &size)
	    || !next_number(&q, &resident) || !next_number(&q, &shared))
		return -1;
	r->shared_pages = shared;
	r->private_pages = resident > shared ? resident - shared : 0;
	return 0;
}

/* A process's CPU time from its CPU clock, which any process may read: the run time of all its
 * threads, live and exited, in nanoseconds. /proc/PID/stat's utime + stime is the same sum
 * rounded to clock ticks, at several times the cost (the kernel prints fifty fields and walks
 * every thread; mariadbd has dozens). The clock leaves out the children the process waited
 * for (stat's cutime and cstime): the top of a forking server, PostgreSQL's postmaster, which
 * reaps its backends, is read from stat. The clock id is the kernel's ABI
 * (MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)); clock_getcpuclockid would add a syscall to
 * check it. */
static bool read_cpu_clock(pid_t pid, double *seconds)
{
	struct timespec ts;
	clockid_t clock = (clockid_t)((~(unsigned)pid << 3) | 2u);
	if (clock_gettime(clock, &ts) != 0)
		return false;
	*seconds = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	return true;
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
#define MAX_KEPT_CHILDREN COST_KEPT_CHILDREN

/* The kept files of `pid` among the previous report's children, moved out of `kept` (a
 * child keeps its place in the kernel's list, so the search starts after the last found). */
static struct server_process take_kept(struct server_process *kept, size_t nkept, size_t *hint,
				       pid_t pid)
{
	struct server_process none = {.pid = pid, .stat_fd = -1, .statm_fd = -1};
	for (size_t k = 0; k < nkept; k++) {
		size_t i = (*hint + k) % nkept;
		if (kept[i].pid == pid) {
			struct server_process found = kept[i];
			kept[i].pid = 0;
			kept[i].stat_fd = kept[i].statm_fd = -1;
			*hint = i + 1;
			return found;
		}
	}
	return none;
}

/* A server that starts no process (mariadbd, mysqld: threads): its CPU clock and statm. */
static void read_lone_server(struct cost_probe *probe, struct cost_totals *t)
{
	struct resident r;
	if (!read_cpu_clock(probe->server.pid, &t->server_cpu_s))
		return;
	t->has_server_cpu = true;
	if ((t->has_server_rss = read_resident(&probe->server, &r) == 0))
		t->server_rss_bytes = (uint64_t)(r.private_pages + r.shared_pages)
				      * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* CPU of the server and every process it started: its own time, what its exited children
 * left it (cutime/cstime), and its live children's time (their CPU clocks). */
static void read_server(struct cost_probe *probe, struct cost_totals *t)
{
	static pid_t children[MAX_SERVER_CHILDREN];
	static struct server_process now_kept[MAX_KEPT_CHILDREN];
	struct proc_stat st;
	if (probe->server.pid <= 0)
		return;
	if (!probe->server_forks) {
		read_lone_server(probe, t);
		return;
	}
	if (read_kept_stat(&probe->server, &st) != 0)
		return;
	double ticks = (double)(st.utime + st.stime + st.cutime + st.cstime);
	double children_cpu_s = 0, one_cpu_s;
	struct resident sum = {0}, one;
	size_t n = list_children(probe, children, MAX_SERVER_CHILDREN);
	size_t nnow = 0, hint = 0;
	bool has_memory = n == 0 || read_resident(&probe->server, &one) == 0;
	if (n == 0)
		sum.private_pages = st.rss;
	else if (has_memory)
		add_resident(&sum, &one);
	for (size_t i = 0; i < n; i++) {
		struct server_process child =
			take_kept(probe->kept, probe->nkept, &hint, children[i]);
		/* A child that exits between the list and its clock is in neither sum this
		 * time; the server's cutime has it at the next report. */
		if (read_cpu_clock(child.pid, &one_cpu_s)) {
			children_cpu_s += one_cpu_s;
			if (has_memory && read_resident(&child, &one) == 0)
				add_resident(&sum, &one);
		}
		if (nnow < MAX_KEPT_CHILDREN && child.statm_fd >= 0)
			now_kept[nnow++] = child;
		else
			forget_process(&child);
	}
	/* Children gone since the last report. */
	for (size_t i = 0; i < probe->nkept; i++)
		forget_process(&probe->kept[i]);
	memcpy(probe->kept, now_kept, nnow * sizeof *now_kept);
	probe->nkept = nnow;
	t->has_server_cpu = true;
	t->server_cpu_s = ticks / (double)sysconf(_SC_CLK_TCK) + children_cpu_s;
	t->has_server_rss = has_memory;
	t->server_rss_bytes = (uint64_t)(sum.private_pages + sum.shared_pages)
			      * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The whole machine's busy CPU time, all CPUs (the first line of /proc/stat): user, nice,
 * system, irq and softirq; idle, iowait and steal (another guest's time on a VM) are not this
 * machine's work, and guest time is in user already. */
static void read_proc_stat_cpu(struct cost_probe *probe, struct cost_totals *t)
{
	char text[512];
	unsigned long long user, nice, system, idle, iowait, irq, softirq;
	if (read_kept_file(&probe->machine_fd, "/proc/stat", text, sizeof text) != 0
	    || sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle,
		      &iowait, &irq, &softirq) != 7)
		return;
	t->has_machine_cpu = true;
	t->machine_cpu_s = (double)(user + nice + system + irq + softirq)
			   / (double)sysconf(_SC_CLK_TCK);
}

/* The same sum from the root cgroup's cpu.stat (cgroup v2: usage_usec is user + nice + system
 * + irq + softirq, from the same per-CPU counters), a fifth of /proc/stat's cost, which prints
 * every interrupt's count too. */
static void read_cgroup_cpu(struct cost_probe *probe, struct cost_totals *t)
{
	char text[512];
	unsigned long long usec;
	const char *p = text + strlen("usage_usec");
	if (read_kept_file(&probe->cgroup_fd, probe->cgroup_stat, text, sizeof text) != 0
	    || strncmp(text, "usage_usec ", strlen("usage_usec ")) != 0 || !next_number(&p, &usec))
		return;
	t->has_machine_cpu = true;
	t->machine_cpu_s = (double)usec * 1e-6;
}

static void read_machine(struct cost_probe *probe, struct cost_totals *t)
{
	if (probe->cgroup_stat[0])
		read_cgroup_cpu(probe, t);
	else
		read_proc_stat_cpu(probe, t);
}

/* The root cgroup's cpu.stat, used when it says what /proc/stat says: inside a cgroup
 * namespace (a container) the root seen is the container's, which is not the machine. */
static void find_machine_cpu(struct cost_probe *probe)
{
	char line[4096], root[4096], mount[4096];
	struct cost_totals from_proc = {0}, from_cgroup = {0};
	read_proc_stat_cpu(probe, &from_proc);
	probe->has_machine = from_proc.has_machine_cpu;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		char *dash = strstr(line, " - cgroup2 ");
		if (dash && sscanf(line, "%*d %*d %*s %4095s %4095s", root, mount) == 2
		    && strcmp(root, "/") == 0) {
			snprintf(probe->cgroup_stat, sizeof probe->cgroup_stat, "%s/cpu.stat", mount);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!probe->cgroup_stat[0])
		return;
	read_cgroup_cpu(probe, &from_cgroup);
	read_proc_stat_cpu(probe, &from_proc);
	double gap = from_cgroup.machine_cpu_s - from_proc.machine_cpu_s;
	/* /proc/stat counts in ticks: the two agree to a few ticks per CPU. */
	if (!from_cgroup.has_machine_cpu || !from_proc.has_machine_cpu
	    || gap < -0.1 * (double)sysconf(_SC_NPROCESSORS_ONLN) - 0.001 * from_proc.machine_cpu_s
	    || gap > 0.1 * (double)sysconf(_SC_NPROCESSORS_ONLN) + 0.001 * from_proc.machine_cpu_s) {
		probe->cgroup_stat[0] = '\0';
		close_kept_file(&probe->cgroup_fd);
		return;
	}
	probe->has_machine = true;
	close_kept_file(&probe->machine_fd);
}

/* The device's line of /proc/diskstats, from /sys/dev/block/M:m/stat (one device, not
 * all of them); sectors are 512 bytes whatever the device's own size. */
static void read_disk(struct cost_probe *probe, struct cost_totals *t)
{
	char text[512];
	/* reads, reads merged, sectors read, ms reading, writes, writes merged, sectors written */
	unsigned long long field[7];
	const char *p = text;
	if (read_kept_numbered(&probe->disk_fd, "/sys/dev/block/%u:%u/stat", probe->device_major,
			       probe->device_minor, text, sizeof text) != 0)
		return;
	for (int i = 0; i < 7; i++)
		if (!next_number(&p, &field[i]))
			return;
	t->has_disk = true;
	t->read_ops = field[0];
	t->write_ops = field[4];
	t->read_bytes = field[2] * 512;
	t->write_bytes = field[6] * 512;
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

/* The table's size from its file, without asking the server: fstat of InnoDB's tablespace
 * file (what innodb_sys_tablespaces.file_size reports: the file's apparent size), kept open.
 * A BLACKHOLE table stores nothing: its size is the server's first answer for the whole run.
 * Used only when the file's size equals the server's answer at the start; otherwise, and on
 * the other backends and engines, the size query runs at every report. A query is a round trip
 * on the control connection, a third of what measuring cost per report on MariaDB. */
static void find_size_file(struct cost_probe *probe)
{
	char engine[64], file[4096], path[8192];
	uint64_t server_size;
	struct stat st;
	if (probe->backend->kind != DB_MYSQL
	    || !select_text(probe,
			    "SELECT engine FROM information_schema.tables WHERE table_schema = "
			    "DATABASE() AND table_name = '" PURCHASES_TABLE "'",
			    engine, sizeof engine))
		return;
	if (strcasecmp(engine, "BLACKHOLE") == 0) {
		probe->size_fixed = select_u64(probe, mysql_size_queries[1], &probe->fixed_size);
		return;
	}
	if (strcasecmp(engine, "InnoDB") != 0 || !probe->data_dir[0]
	    || !select_text(probe,
			    "SELECT filename FROM information_schema.innodb_sys_tablespaces "
			    "WHERE name = CONCAT(DATABASE(), '/" PURCHASES_TABLE "')",
			    file, sizeof file)
	    || !select_u64(probe, mysql_size_queries[0], &server_size))
		return;
	if (file[0] == '/')
		snprintf(path, sizeof path, "%s", file);
	else
		snprintf(path, sizeof path, "%s/%s", probe->data_dir,
			 strncmp(file, "./", 2) == 0 ? file + 2 : file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != server_size) {
		close(fd);
		return;
	}
	probe->size_fd = fd;
}

/* -- PostgreSQL's size from its files ----------------------------------------------- */

/* pg_total_relation_size adds up the sizes of the files of the table, its indexes, its TOAST
 * table and that table's index: for each, every fork (main, _fsm, _vm, _init) and each fork's
 * 1 GB segments (.1, .2, ...), found by trying names until one is missing. The benchmark does
 * the same with the files kept open, and looks for files again only when the database's
 * directory changed (a file created or removed changes its mtime), which saves the query's
 * round trip at every report. */
static const char *const pg_forks[] = {"", "_fsm", "_vm", "_init"};

static void close_pg_files(struct cost_probe *probe)
{
	for (size_t i = 0; i < probe->npg_files; i++)
		close_kept_file(&probe->pg_files[i]);
	probe->npg_files = 0;
}

/* Opens every file of the relations; false if one has no main fork or they are too many. */
static bool open_pg_files(struct cost_probe *probe)
{
	char path[8192];
	close_pg_files(probe);
	for (const char *rel = probe->pg_relations; *rel;) {
		size_t len = strcspn(rel, " ");
		for (size_t f = 0; f < sizeof pg_forks / sizeof *pg_forks; f++)
			for (unsigned segment = 0;; segment++) {
				if (segment)
					snprintf(path, sizeof path, "%s/%.*s%s.%u", probe->data_dir,
						 (int)len, rel, pg_forks[f], segment);
				else
					snprintf(path, sizeof path, "%s/%.*s%s", probe->data_dir,
						 (int)len, rel, pg_forks[f]);
				int fd = open(path, O_RDONLY | O_CLOEXEC);
				if (fd < 0) {
					if (f == 0 && segment == 0)
						return false;
					break;
				}
				if (probe->npg_files == COST_PG_FILES) {
					close(fd);
					return false;
				}
				probe->pg_files[probe->npg_files++] = fd;
			}
		rel += len;
		rel += strspn(rel, " ");
	}
	return true;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* The sum of the files' sizes; false when they can no longer stand for the relations (a file
 * removed: TRUNCATE, VACUUM FULL or REINDEX gave a relation new files). */
static bool pg_files_size(struct cost_probe *probe, uint64_t *size)
{
	struct stat st;
	struct timespec now;
	if (fstat(probe->pg_dir_fd, &st) != 0)
		return false;
	/* The directory's mtime comes from the kernel's coarse clock, cut to the file system's
	 * resolution: a file created in the same tick as the last change leaves it as it was.
	 * A look at the files is trusted once it started a tick after that change (the tick
	 * taken as 20 ms, or 2 s where the file system keeps whole seconds); until then the
	 * files are looked for again at every report. */
	if (!same_time(st.st_mtim, probe->pg_dir_mtime) || !probe->pg_dir_settled) {
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if (!open_pg_files(probe))
			return false;
		double tick = st.st_mtim.tv_nsec ? 0.02 : 2.0;
		probe->pg_dir_settled = (double)(now.tv_sec - st.st_mtim.tv_sec)
						+ (double)(now.tv_nsec - st.st_mtim.tv_nsec) * 1e-9
					> tick;
		probe->pg_dir_mtime = st.st_mtim;
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < probe->npg_files; i++) {
		if (fstat(probe->pg_files[i], &st) != 0 || st.st_nlink == 0)
			return false;
		sum += (uint64_t)st.st_size;
	}
	*size = sum;
	return true;
}

/* Used when the data directory can be read (the server's user, or root) and the files add up
 * to the server's answer at the start. */
static void find_pg_files(struct cost_probe *probe)
{
	char dir[8192];
	uint64_t server_size, files_size;
	if (!probe->data_dir[0]
	    || !select_text(probe,
			    "SELECT string_agg(pg_relation_filepath(oid), ' ') FROM pg_class WHERE oid "
			    "IN (SELECT '" PURCHASES_TABLE "'::regclass UNION ALL SELECT reltoastrelid "
			    "FROM pg_class WHERE oid = '" PURCHASES_TABLE "'::regclass UNION ALL "
			    "SELECT indexrelid FROM pg_index WHERE indrelid IN ('" PURCHASES_TABLE
			    "'::regclass, (SELECT reltoastrelid FROM pg_class WHERE oid = '"
			    PURCHASES_TABLE "'::regclass)))",
			    probe->pg_relations, sizeof probe->pg_relations))
		return;
	/* Relations in another tablespace are under pg_tblspc/: their directory is not the
	 * first one's, whose changes are watched. */
	const char *first = probe->pg_relations;
	size_t len = strcspn(first, " ");
	const char *slash = memrchr(first, '/', len);
	if (!slash || strstr(probe->pg_relations, "pg_tblspc/"))
		return;
	for (const char *rel = first; *rel;) {
		size_t n = strcspn(rel, " ");
		if (n <= (size_t)(slash - first) || strncmp(rel, first, (size_t)(slash - first) + 1) != 0)
			return;
		rel += n;
		rel += strspn(rel, " ");
	}
	snprintf(dir, sizeof dir, "%s/%.*s", probe->data_dir, (int)(slash - first), first);
	if ((probe->pg_dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (pg_files_size(probe, &files_size) && select_u64(probe, pg_size_queries[0], &server_size)
	    && files_size == server_size) {
		probe->pg_use_files = true;
		return;
	}
	close_pg_files(probe);
	close_kept_file(&probe->pg_dir_fd);
}

static void read_size(struct cost_probe *probe, struct cost_totals *t)
{
	struct stat st;
	if (probe->size_fixed) {
		t->has_size = true;
		t->db_size_bytes = probe->fixed_size;
		return;
	}
	if (probe->size_fd >= 0 && fstat(probe->size_fd, &st) == 0) {
		t->has_size = true;
		t->db_size_bytes = (uint64_t)st.st_size;
		return;
	}
	if (probe->pg_use_files) {
		if ((t->has_size = pg_files_size(probe, &t->db_size_bytes)))
			return;
		probe->pg_use_files = false;
		close_pg_files(probe);
		close_kept_file(&probe->pg_dir_fd);
	}
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
	if (probe->has_machine)
		read_machine(probe, t);
	read_server(probe, t);
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
	probe->server.stat_fd = probe->server.statm_fd = -1;
	probe->children_fd = probe->machine_fd = probe->cgroup_fd = -1;
	probe->disk_fd = probe->size_fd = probe->pg_dir_fd = -1;
	if (!enabled) {
		cost_report_probe(probe);
		return;
	}
	bool local = backend->kind == DB_SQLITE || host_is_local(url) || server_pid > 0;
	if (server_pid > 0)
		probe->server.pid = (pid_t)server_pid;
	else if (local)
		probe->server.pid = find_server_pid(probe);
	/* mariadbd and mysqld serve with threads and start no process: their children are not
	 * looked for at every report. PostgreSQL forks a backend per connection. */
	probe->server_forks = server_pid > 0 || backend->kind != DB_MYSQL;
	/* A remote server's data directory names nothing on this host, and this host's CPU is
	 * then the client's alone. */
	if (local && (backend->kind == DB_SQLITE || probe->server.pid > 0)) {
		find_device(probe, url);
		find_machine_cpu(probe);
	}
	cost_report_probe(probe);
}

void cost_probe_close(struct cost_probe *probe)
{
	if (!probe)
		return;
	forget_process(&probe->server);
	for (size_t i = 0; i < probe->nkept; i++)
		forget_process(&probe->kept[i]);
	probe->nkept = 0;
	close_kept_file(&probe->children_fd);
	close_kept_file(&probe->machine_fd);
	close_kept_file(&probe->cgroup_fd);
	close_kept_file(&probe->disk_fd);
	close_kept_file(&probe->size_fd);
	close_pg_files(probe);
	close_kept_file(&probe->pg_dir_fd);
}

void cost_report_probe(const struct cost_probe *probe)
{
	char pid[32] = "-", device[32] = "-";
	if (probe->server.pid > 0)
		snprintf(pid, sizeof pid, "%d", (int)probe->server.pid);
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
	find_size_file(probe);
	if (probe->backend->kind == DB_POSTGRESQL)
		find_pg_files(probe);
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

/* The columns are written by hand, not with printf: a dozen vsnprintf calls with "%.3f" cost
 * as much as one of the /proc reads. */
struct columns {
	char *p, *end;  /* end: the last byte, kept for the '\0' */
};

static void put_text(struct columns *c, const char *text)
{
	while (*text && c->p < c->end)
		*c->p++ = *text++;
	*c->p = '\0';
}

static void put_digits(struct columns *c, uint64_t v, int min_digits)
{
	char digits[24];
	int n = 0;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || n < min_digits);
	while (n && c->p < c->end)
		*c->p++ = digits[--n];
	*c->p = '\0';
}

static void put_u64(struct columns *c, uint64_t v)
{
	put_text(c, "\t");
	put_digits(c, v, 1);
}

/* Thousandths, rounded half up: "%.3f" of a value >= 0 but for exact ties. */
static void put_thousandths(struct columns *c, uint64_t thousandths)
{
	put_text(c, "\t");
	put_digits(c, thousandths / 1000, 1);
	put_text(c, ".");
	put_digits(c, thousandths % 1000, 3);
}

static void put_seconds(struct columns *c, double seconds)
{
	put_thousandths(c, seconds > 0 ? (uint64_t)(seconds * 1000.0 + 0.5) : 0);
}

static void put_ms(struct columns *c, uint64_t ns)
{
	put_thousandths(c, (ns + 500) / 1000);
}

static void put_delta(struct columns *c, bool has, uint64_t now, uint64_t before)
{
	if (has)
		put_u64(c, now > before ? now - before : 0);
	else
		put_text(c, "\t-");
}

void cost_format_columns(struct cost_probe *probe, char *out, size_t outlen)
{
	struct columns c = {out, out + outlen - 1};
	out[0] = '\0';
	if (!probe->enabled) {
		for (int i = 0; i < COST_COLUMN_COUNT; i++)
			put_text(&c, "\t-");
		return;
	}
	double started = thread_cpu_now();
	struct latency_summary lat = latency_take(&probe->latency);
	if (lat.statements) {
		put_ms(&c, lat.p50_ns);
		put_ms(&c, lat.p99_ns);
		put_ms(&c, lat.max_ns);
	} else {
		put_text(&c, "\t-\t-\t-");
	}
	struct cost_totals now, *was = &probe->last;
	read_totals(probe, &now);
	put_seconds(&c, now.client_cpu_s - was->client_cpu_s);
	if (now.has_server_cpu && was->has_server_cpu)
		put_seconds(&c, now.server_cpu_s - was->server_cpu_s);
	else
		put_text(&c, "\t-");
	if (now.has_server_rss)
		put_u64(&c, now.server_rss_bytes);
	else
		put_text(&c, "\t-");
	bool disk = now.has_disk && was->has_disk;
	put_delta(&c, disk, now.read_bytes, was->read_bytes);
	put_delta(&c, disk, now.write_bytes, was->write_bytes);
	put_delta(&c, disk, now.read_ops, was->read_ops);
	put_delta(&c, disk, now.write_ops, was->write_ops);
	if (now.has_size)
		put_u64(&c, now.db_size_bytes);
	else
		put_text(&c, "\t-");
	if (now.has_machine_cpu && was->has_machine_cpu)
		put_seconds(&c, now.machine_cpu_s - was->machine_cpu_s);
	else
		put_text(&c, "\t-");
	/* A quantity missing now makes the next interval's difference "-" too:
	 * it would otherwise span two intervals. */
	*was = now;
	probe->report_cpu_s += thread_cpu_now() - started;
}
