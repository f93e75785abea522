#include "loadgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "datagen.h"
#include "report.h"
#include "schema.h"
#include "textutil.h"

/* 32 symbols: one per 5 random bits. No '|', '\\' or newline, which the
 * LOAD DATA and COPY text formats would treat specially. */
static const char pad_alphabet[] = "abcdefghijklmnopqrstuvwxyz012345";
#define PAD_COLUMN 63  /* the random value a row's pad stream starts from */

static const char *const ddl_files[] = {"load_table.sql", "load_table.postgresql.sql",
					"load_table.sqlite.sql"};
static const enum db_kind ddl_dialects[] = {DB_MYSQL, DB_POSTGRESQL, DB_SQLITE};

static char *format_pad(char *p, uint64_t stream, uint64_t row, unsigned length)
{
	uint64_t pad_stream = load_random(stream, row, PAD_COLUMN);
	for (unsigned done = 0, j = 0; done < length; j++) {
		uint64_t v = stream_value(pad_stream, j);
		for (int c = 0; c < 12 && done < length; c++, done++, v >>= 5)
			*p++ = pad_alphabet[v & 31];
	}
	return p;
}

/* One line: val0|val1|...|pad */
static size_t format_line(char *line, const struct load_options *o, uint64_t stream, uint64_t row)
{
	char *p = fmt_u64(line, load_primary_key(stream, row));
	for (unsigned k = 1; k < o->keys; k++) {
		*p++ = '|';
		p = fmt_u64(p, load_random(stream, row, k) & LOAD_KEY_MASK);
	}
	*p++ = '|';
	p = format_pad(p, stream, row, o->row_length - 8 * o->keys);
	*p++ = '\n';
	return (size_t)(p - line);
}

static int write_data(const struct load_options *o, const char *path, uint64_t *bytes)
{
	FILE *f = fopen(path, "w");
	char *line = malloc(o->row_length + 21 * o->keys + 2);
	if (!f || !line) {
		free(line);
		if (f)
			fclose(f);
		return -1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	uint64_t stream = seed_stream(o->seed);
	*bytes = 0;
	for (uint64_t row = 0; row < o->rows; row++) {
		size_t n = format_line(line, o, stream, row);
		if (fwrite(line, 1, n, f) != n)
			break;
		*bytes += n;
	}
	free(line);
	int failed = ferror(f);
	return fclose(f) == 0 && !failed ? 0 : -1;
}

static int write_ddl(const struct load_options *o, const char *path, enum db_kind dialect)
{
	struct ddl_script ddl = {0};
	schema_load_table(&ddl, dialect, o->keys, o->row_length, o->engine, 0);
	FILE *f = fopen(path, "w");
	if (f)
		for (size_t i = 0; i < ddl.count; i++)
			fprintf(f, "%s;\n", ddl.statements[i]);
	ddl_script_free(&ddl);
	return f && fclose(f) == 0 ? 0 : -1;
}

int loadgen_write(const struct load_options *o, const char *dir, struct load_files *out,
		  char *err, size_t errlen)
{
	char path[PATH_TEXT_MAX];
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(out->data, sizeof out->data, "%s/load_table.data", dir);
	if (write_data(o, out->data, &out->data_bytes) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", out->data, strerror(errno));
		return -1;
	}
	out->rows = o->rows;
	for (size_t i = 0; i < sizeof ddl_files / sizeof ddl_files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, ddl_files[i]);
		if (write_ddl(o, path, ddl_dialects[i]) != 0) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

void loadgen_remove(const char *dir)
{
	char path[PATH_TEXT_MAX];
	snprintf(path, sizeof path, "%s/load_table.data", dir);
	unlink(path);
	for (size_t i = 0; i < sizeof ddl_files / sizeof ddl_files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, ddl_files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int run_loadgen(int argc, char **argv, const struct load_options *o)
{
	report_begin(argc, argv);
	report_param_str("mode", "loadgen");
	report_param_u64("keys", o->keys);
	report_param_u64("row_length", o->row_length);
	report_param_u64("rows", o->rows);
	report_param_u64("seed", o->seed);
	struct load_files files;
	char err[PATH_TEXT_MAX + 256];
	double start = clock_now();
	if (loadgen_write(o, o->out_dir, &files, err, sizeof err) != 0) {
		fprintf(stderr, "iibench: error: %s\n", err);
		report_comment("summary status=failed mode=loadgen error=%s", err);
		return 1;
	}
	double seconds = report_seconds(clock_now() - start, o->rows);
	report_comment("data_file %s", files.data);
	report_comment("summary status=completed mode=loadgen rows=%llu keys=%u row_length=%u "
		       "seconds=%.3f data_bytes=%llu", (unsigned long long)o->rows, o->keys,
		       o->row_length, seconds, (unsigned long long)files.data_bytes);
	return 0;
}
