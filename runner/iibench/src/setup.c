#include "setup.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "textutil.h"

/* -- the machine --------------------------------------------------------------------- */

static void trim_newline(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

static bool read_line_of(const char *path, char *out, size_t outlen)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(out, (int)outlen, f);
	if (f)
		fclose(f);
	if (ok)
		trim_newline(out);
	return ok && out[0];
}

struct cpu_facts {
	char model[256];
	unsigned cpus, sockets, cores;
};

/* Sockets are the distinct "physical id"s, cores the distinct (physical id,
 * core id) pairs; cpus counts what the kernel schedules on. */
static void read_cpus(struct cpu_facts *cpu)
{
	enum { MAX_IDS = 4096 };
	static long pairs[MAX_IDS];
	long sockets[256];
	size_t npairs = 0, nsockets = 0;
	long physical = -1;
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (strncmp(line, "processor", 9) == 0)
			cpu->cpus++;
		else if (strncmp(line, "model name", 10) == 0 && !cpu->model[0])
			copy_one_line(cpu->model, sizeof cpu->model, colon + 2);
		else if (strncmp(line, "physical id", 11) == 0) {
			physical = atol(colon + 1);
			size_t i = 0;
			while (i < nsockets && sockets[i] != physical)
				i++;
			if (i == nsockets && nsockets < 256)
				sockets[nsockets++] = physical;
		} else if (strncmp(line, "core id", 7) == 0) {
			long pair = physical * 100000 + atol(colon + 1);
			size_t i = 0;
			while (i < npairs && pairs[i] != pair)
				i++;
			if (i == npairs && npairs < MAX_IDS)
				pairs[npairs++] = pair;
		}
	}
	if (f)
		fclose(f);
	cpu->sockets = (unsigned)nsockets;
	cpu->cores = (unsigned)npairs;
}

static unsigned long long memory_bytes(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

struct device_facts {
	char name[64], model[256], rotational[8], filesystem[64];
};

/* /sys/dev/block/MAJOR:MINOR names the device; a partition's model and
 * queue belong to its disk, the directory above it. */
static void read_device(const struct cost_probe *probe, struct device_facts *dev)
{
	char path[PATH_MAX + 32], real[PATH_MAX], disk[PATH_MAX], text[256];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u", probe->device_major,
		 probe->device_minor);
	if (!realpath(path, real))
		return;
	snprintf(dev->name, sizeof dev->name, "%s", strrchr(real, '/') + 1);
	snprintf(disk, sizeof disk, "%s", real);
	snprintf(path, sizeof path, "%s/partition", real);
	if (access(path, F_OK) == 0)
		*strrchr(disk, '/') = '\0';
	snprintf(path, sizeof path, "%s/device/model", disk);
	if (read_line_of(path, text, sizeof text))
		copy_one_line(dev->model, sizeof dev->model, text);
	snprintf(path, sizeof path, "%s/queue/rotational", disk);
	if (read_line_of(path, text, sizeof text))
		snprintf(dev->rotational, sizeof dev->rotational, "%s",
			 strcmp(text, "1") == 0 ? "yes" : "no");
}

/* The file system type of the mount whose device is MAJOR:MINOR (the last
 * one mounted wins, as it hides the others). */
static void read_filesystem(const struct cost_probe *probe, struct device_facts *dev)
{
	char want[32], line[4096];
	snprintf(want, sizeof want, " %u:%u ", probe->device_major, probe->device_minor);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		char *dash = strstr(line, " - ");
		char type[64];
		if (strstr(line, want) && dash && sscanf(dash + 3, "%63s", type) == 1)
			snprintf(dev->filesystem, sizeof dev->filesystem, "%s", type);
	}
	if (f)
		fclose(f);
}

static const char *or_dash(const char *s)
{
	return s[0] ? s : "-";
}

void setup_report_machine(const struct cost_probe *probe)
{
	struct cpu_facts cpu = {0};
	struct device_facts dev = {0};
	read_cpus(&cpu);
	if (probe->has_device) {
		read_device(probe, &dev);
		read_filesystem(probe, &dev);
	}
	report_comment("machine cpu_model %s", or_dash(cpu.model));
	report_comment("machine cpus %u", cpu.cpus);
	report_comment("machine sockets %u", cpu.sockets ? cpu.sockets : 1);
	report_comment("machine cores %u", cpu.cores ? cpu.cores : cpu.cpus);
	report_comment("machine memory_bytes %llu", memory_bytes());
	report_comment("machine data_device %s", or_dash(dev.name));
	report_comment("machine data_device_model %s", or_dash(dev.model));
	report_comment("machine data_device_rotational %s", or_dash(dev.rotational));
	report_comment("machine data_filesystem %s", or_dash(dev.filesystem));
}

/* -- the server's settings ----------------------------------------------------------- */

/* Rows of (name, value, state). */
static void print_setting(void *ctx, unsigned ncols, const char *const *values)
{
	(void)ctx;
	if (ncols < 3 || !values[0])
		return;
	char name[256], value[3500];
	copy_one_line(name, sizeof name, values[0]);
	for (char *p = name; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	copy_one_line(value, sizeof value, values[1] ? values[1] : "");
	report_comment("setting %s %s %s", name, values[2] ? values[2] : "unknown", value);
}

/* MariaDB: a value the configuration, the command line or SET GLOBAL gave
 * and that differs from the compiled default. MySQL lacks the origin
 * column: all variables, state unknown. */
static const char *const mysql_settings[] = {
	"SELECT variable_name, global_value, CASE WHEN global_value_origin IN "
	"('CONFIG', 'COMMAND-LINE', 'SQL', 'ENVIRONMENT') AND NOT (global_value <=> "
	"default_value) THEN 'changed' ELSE 'default' END FROM information_schema.system_variables "
	"WHERE global_value_origin IS NOT NULL ORDER BY variable_name",
	"SELECT variable_name, variable_value, 'unknown' FROM performance_schema.global_variables "
	"ORDER BY variable_name",
	NULL,
};

/* PostgreSQL: sources other than the built-in default (and the client's own
 * session), with a value other than the boot value. */
static const char *const pg_settings_query[] = {
	"SELECT name, current_setting(name), CASE WHEN source NOT IN ('default', 'override', "
	"'client', 'session') AND setting IS DISTINCT FROM boot_val THEN 'changed' ELSE "
	"'default' END FROM pg_settings ORDER BY name",
	NULL,
};

/* SQLite has no server: the connection's pragmas, against SQLite's defaults. */
static const char *const sqlite_settings[] = {
	"SELECT 'auto_vacuum', auto_vacuum, CASE auto_vacuum WHEN 0 THEN 'default' ELSE 'changed' "
	"END FROM pragma_auto_vacuum() UNION ALL "
	"SELECT 'cache_size', cache_size, CASE cache_size WHEN -2000 THEN 'default' ELSE "
	"'changed' END FROM pragma_cache_size() UNION ALL "
	"SELECT 'journal_mode', journal_mode, CASE journal_mode WHEN 'delete' THEN 'default' ELSE "
	"'changed' END FROM pragma_journal_mode() UNION ALL "
	"SELECT 'page_size', page_size, CASE page_size WHEN 4096 THEN 'default' ELSE 'changed' "
	"END FROM pragma_page_size() UNION ALL "
	"SELECT 'synchronous', synchronous, CASE synchronous WHEN 2 THEN 'default' ELSE "
	"'changed' END FROM pragma_synchronous()",
	NULL,
};

void setup_report_settings(const struct backend *backend, struct db_conn *control)
{
	const char *const *queries = backend->kind == DB_MYSQL	    ? mysql_settings
				     : backend->kind == DB_POSTGRESQL ? pg_settings_query
								      : sqlite_settings;
	for (size_t i = 0; queries[i]; i++)
		if (backend->select_rows(control, queries[i], print_setting, NULL) == 0)
			return;
	report_comment("settings unavailable: %s", control->error);
}
