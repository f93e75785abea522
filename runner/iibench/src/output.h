/* Lines on stdout, each flushed as printed (the rerun worker streams stdout)
 * and never interleaved between threads: what the report (report.c) and the
 * cost probe's comments (cost.c) both print through, so neither includes the
 * other's header both ways. */
#ifndef IIBENCH_OUTPUT_H
#define IIBENCH_OUTPUT_H

/* One line, formatted whole, under the output lock. */
void output_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One "# ..." line; fmt excludes the "# " and the newline. */
void report_comment(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
