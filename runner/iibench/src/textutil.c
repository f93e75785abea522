#include "textutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void textbuf_reserve(struct textbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	char *data = realloc(b->data, cap);
	if (!data) {
		fputs("iibench: error: out of memory\n", stderr);
		abort();
	}
	b->data = data;
	b->cap = cap;
}

void textbuf_append(struct textbuf *b, const char *s, size_t n)
{
	textbuf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void textbuf_puts(struct textbuf *b, const char *s)
{
	textbuf_append(b, s, strlen(s));
}

void textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	textbuf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void textbuf_free(struct textbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* Two digits at a time: halves the divisions of the naive loop. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *t = tmp + sizeof tmp;
	while (v >= 100) {
		unsigned pair = (unsigned)(v % 100) * 2;
		v /= 100;
		t -= 2;
		t[0] = digit_pairs[pair];
		t[1] = digit_pairs[pair + 1];
	}
	if (v >= 10) {
		t -= 2;
		t[0] = digit_pairs[v * 2];
		t[1] = digit_pairs[v * 2 + 1];
	} else {
		*--t = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof tmp - t);
	memcpy(p, t, n);
	return p + n;
}

char *fmt_price_cents(char *p, uint32_t cents)
{
	p = fmt_u64(p, cents / 100);
	unsigned pair = (cents % 100) * 2;
	p[0] = '.';
	p[1] = digit_pairs[pair];
	p[2] = digit_pairs[pair + 1];
	return p + 3;
}

static const char hex_digits[] = "0123456789abcdef";

char *fmt_hex(char *p, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*p++ = hex_digits[bytes[i] >> 4];
		*p++ = hex_digits[bytes[i] & 15];
	}
	return p;
}

char *fmt_uuid(char *p, const uint8_t uuid[16])
{
	p = fmt_hex(p, uuid, 4);
	*p++ = '-';
	p = fmt_hex(p, uuid + 4, 2);
	*p++ = '-';
	p = fmt_hex(p, uuid + 6, 2);
	*p++ = '-';
	p = fmt_hex(p, uuid + 8, 2);
	*p++ = '-';
	return fmt_hex(p, uuid + 10, 6);
}

/* Howard Hinnant's civil-calendar algorithms: exact for the proleptic
 * Gregorian calendar and independent of the process's time zone. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	const unsigned doe = (unsigned)(z - era * 146097);
	const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static char *put2(char *p, unsigned v)
{
	p[0] = digit_pairs[v * 2];
	p[1] = digit_pairs[v * 2 + 1];
	return p + 2;
}

void format_datetime(int64_t epoch_seconds, char out[DATETIME_TEXT_LEN + 1])
{
	int64_t days = epoch_seconds / 86400;
	int64_t secs = epoch_seconds % 86400;
	if (secs < 0) {
		secs += 86400;
		days -= 1;
	}
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	char *p = out;
	p = put2(p, (unsigned)(y / 100 % 100));
	p = put2(p, (unsigned)(y % 100));
	*p++ = '-';
	p = put2(p, m);
	*p++ = '-';
	p = put2(p, d);
	*p++ = ' ';
	p = put2(p, (unsigned)(secs / 3600));
	*p++ = ':';
	p = put2(p, (unsigned)(secs / 60 % 60));
	*p++ = ':';
	p = put2(p, (unsigned)(secs % 60));
	*p = '\0';
}

static int days_in_month(int64_t y, unsigned m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return days[m - 1] + (m == 2 && leap);
}

int parse_datetime(const char *text, int64_t *epoch_seconds)
{
	int y, mo, d, h, mi, s, used = 0;
	char sep;
	if (sscanf(text, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &s, &used) != 7
	    || text[used] != '\0' || (sep != 'T' && sep != ' '))
		return -1;
	/* MySQL's DATETIME starts at year 1000. */
	if (y < 1000 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, (unsigned)mo)
	    || h > 23 || mi > 59 || s > 59 || h < 0 || mi < 0 || s < 0)
		return -1;
	*epoch_seconds = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400
			 + h * 3600 + mi * 60 + s;
	return 0;
}

void copy_one_line(char *dst, size_t dstlen, const char *src)
{
	if (dstlen == 0)
		return;
	size_t n = 0;
	for (; src && *src && n + 1 < dstlen; src++) {
		char c = (*src == '\n' || *src == '\r' || *src == '\t') ? ' ' : *src;
		/* "failed:\n\tIs the server running" reads as one sentence. */
		if (c == ' ' && (n == 0 || dst[n - 1] == ' '))
			continue;
		dst[n++] = c;
	}
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}
