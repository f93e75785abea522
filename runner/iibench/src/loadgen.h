/* Seed 003's data generator: a '|'-separated file of random 8-byte keys
 * padded with text to the row length, and the matching CREATE TABLE. */
#ifndef IIBENCH_LOADGEN_H
#define IIBENCH_LOADGEN_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

#define PATH_TEXT_MAX 4096

struct load_files {
	char data[PATH_TEXT_MAX];   /* DIR/load_table.data */
	uint64_t data_bytes;
	uint64_t rows;
};

/* Writes DIR/load_table.data and the CREATE TABLE files load_table.sql
 * (MySQL, as in seed 003), load_table.postgresql.sql, load_table.sqlite.sql.
 * Creates DIR if it does not exist. Returns 0 or -1 with err set. */
int loadgen_write(const struct load_options *o, const char *dir, struct load_files *out,
		  char *err, size_t errlen);

/* Deletes what loadgen_write wrote into dir, and dir. */
void loadgen_remove(const char *dir);

/* `iibench loadgen`: returns the exit status. */
int run_loadgen(int argc, char **argv, const struct load_options *o);

#endif
