/* Text building for the hot loop: a growable buffer and number formatting
 * without snprintf (formatting a million rows must cost tens of ns each). */
#ifndef IIBENCH_TEXTUTIL_H
#define IIBENCH_TEXTUTIL_H

#include <stddef.h>
#include <stdint.h>

struct textbuf {
	char *data;
	size_t len;
	size_t cap;
};

/* Makes room for `extra` more bytes (plus a NUL); aborts on out-of-memory,
 * which a benchmark cannot recover from anyway. */
void textbuf_reserve(struct textbuf *b, size_t extra);
void textbuf_append(struct textbuf *b, const char *s, size_t n);
void textbuf_puts(struct textbuf *b, const char *s);
void textbuf_printf(struct textbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void textbuf_free(struct textbuf *b);

/* The fmt_* functions write at p (the caller reserved room) and return the
 * end of what they wrote. None writes a NUL. */
char *fmt_u64(char *p, uint64_t v);
/* 12345 cents -> "123.45": prices are generated in whole cents. */
char *fmt_price_cents(char *p, uint32_t cents);
/* Lowercase hex of n bytes. */
char *fmt_hex(char *p, const uint8_t *bytes, size_t n);
/* 8-4-4-4-12 text form of a UUID (36 chars). */
char *fmt_uuid(char *p, const uint8_t uuid[16]);

#define DATETIME_TEXT_LEN 19
/* "YYYY-MM-DD HH:MM:SS" (UTC arithmetic, no time zone) plus a NUL. */
void format_datetime(int64_t epoch_seconds, char out[DATETIME_TEXT_LEN + 1]);
/* "YYYY-MM-DDTHH:MM:SS" (or with a space) to seconds since the epoch;
 * returns -1 on a malformed or impossible date. */
int parse_datetime(const char *text, int64_t *epoch_seconds);

/* Copies src into dst as one line: newlines and tabs become spaces, trailing
 * blanks go. Server messages end up at the end of an output line. */
void copy_one_line(char *dst, size_t dstlen, const char *src);

#endif
