/* iibench: the indexed-insertion benchmark (Tokutek's 2008 contest) on
 * SQLite, MariaDB/MySQL and PostgreSQL. See README.md and FORMAT.md. */
#include <stdbool.h>
#include <string.h>

#include "load.h"
#include "loadgen.h"
#include "options.h"
#include "run.h"

static int bulk_mode(int argc, char **argv, bool is_load)
{
	struct load_options o;
	switch (parse_load_options(argc - 1, argv + 1, is_load, &o)) {
	case PARSE_EXIT_OK:
		return 0;
	case PARSE_ERROR:
		return 2;
	case PARSE_OK:
		break;
	}
	return is_load ? run_load_benchmark(argc, argv, &o) : run_loadgen(argc, argv, &o);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "loadgen") == 0)
		return bulk_mode(argc, argv, false);
	if (argc > 1 && strcmp(argv[1], "load") == 0)
		return bulk_mode(argc, argv, true);
	struct run_options o;
	switch (parse_run_options(argc, argv, &o)) {
	case PARSE_EXIT_OK:
		return 0;
	case PARSE_ERROR:
		return 2;
	case PARSE_OK:
		break;
	}
	return run_insert_benchmark(argc, argv, &o);
}
