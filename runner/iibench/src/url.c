#include "url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *db_kind_name(enum db_kind kind)
{
	switch (kind) {
	case DB_SQLITE:
		return "sqlite";
	case DB_MYSQL:
		return "mysql";
	case DB_POSTGRESQL:
		return "postgresql";
	}
	return "?";
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decodes [s, s+n) into out: a password may contain '@' or ':'. */
static int decode_part(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			if (i + 2 >= n)
				return -1;
			int h = hex_value(s[i + 1]), l = hex_value(s[i + 2]);
			if (h < 0 || l < 0)
				return -1;
			c = (char)(h * 16 + l);
			i += 2;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

struct scheme {
	const char *prefix;
	enum db_kind kind;
};

static const struct scheme schemes[] = {
	{"sqlite://", DB_SQLITE},
	{"mysql://", DB_MYSQL},
	{"mariadb://", DB_MYSQL},
	{"postgresql://", DB_POSTGRESQL},
	{"postgres://", DB_POSTGRESQL},
};

static const char *match_scheme(const char *text, enum db_kind *kind)
{
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
		size_t n = strlen(schemes[i].prefix);
		if (strncmp(text, schemes[i].prefix, n) == 0) {
			*kind = schemes[i].kind;
			return text + n;
		}
	}
	return NULL;
}

static int parse_sqlite(const char *rest, struct db_url *out, char *err, size_t errlen)
{
	/* As django-environ: what follows "sqlite://" is "/" + path, so three
	 * slashes make a relative path and four an absolute one. */
	if (rest[0] != '/' || rest[1] == '\0') {
		snprintf(err, errlen, "expected sqlite:///relative.db or sqlite:////absolute/path.db");
		return -1;
	}
	/* Each connection would get its own empty in-memory database. */
	if (strcmp(rest + 1, ":memory:") == 0) {
		snprintf(err, errlen, "an in-memory SQLite database cannot be shared by the "
				      "benchmark's connections; use a file");
		return -1;
	}
	if (strlen(rest + 1) >= sizeof out->path) {
		snprintf(err, errlen, "the SQLite path is too long");
		return -1;
	}
	strcpy(out->path, rest + 1);
	return 0;
}

static int parse_port(const char *s, size_t n, unsigned *port)
{
	if (n == 0 || n > 5)
		return -1;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

static int parse_userinfo(const char *s, size_t n, struct db_url *out)
{
	const char *colon = memchr(s, ':', n);
	size_t user_len = colon ? (size_t)(colon - s) : n;
	if (decode_part(s, user_len, out->user, sizeof out->user) != 0)
		return -1;
	if (colon) {
		out->has_password = true;
		return decode_part(colon + 1, n - user_len - 1, out->password, sizeof out->password);
	}
	return 0;
}

static int parse_hostport(const char *s, size_t n, struct db_url *out)
{
	const char *host = s, *port = NULL;
	size_t host_len = n;
	if (n > 0 && s[0] == '[') {
		/* IPv6 literal: [::1]:3306 */
		const char *close = memchr(s, ']', n);
		if (!close)
			return -1;
		host = s + 1;
		host_len = (size_t)(close - s - 1);
		if (close + 1 < s + n) {
			if (close[1] != ':')
				return -1;
			port = close + 2;
		}
	} else {
		const char *colon = memchr(s, ':', n);
		if (colon) {
			host_len = (size_t)(colon - s);
			port = colon + 1;
		}
	}
	if (host_len >= sizeof out->host)
		return -1;
	memcpy(out->host, host, host_len);
	out->host[host_len] = '\0';
	if (port && parse_port(port, (size_t)(s + n - port), &out->port) != 0)
		return -1;
	return 0;
}

static int parse_server(const char *rest, struct db_url *out, char *err, size_t errlen)
{
	const char *example = out->kind == DB_MYSQL ? "mysql://user:pass@host:port/db"
						     : "postgresql://user:pass@host:port/db";
	if (strpbrk(rest, "?#")) {
		snprintf(err, errlen, "query parameters are not supported; expected %s", example);
		return -1;
	}
	const char *slash = strchr(rest, '/');
	if (!slash || slash[1] == '\0' || strchr(slash + 1, '/')) {
		snprintf(err, errlen, "a database name is required; expected %s", example);
		return -1;
	}
	/* The last '@' separates the user info: an unencoded '@' in a password. */
	const char *at = NULL;
	for (const char *p = rest; p < slash; p++)
		if (*p == '@')
			at = p;
	const char *hostport = at ? at + 1 : rest;
	if ((at && parse_userinfo(rest, (size_t)(at - rest), out) != 0)
	    || parse_hostport(hostport, (size_t)(slash - hostport), out) != 0
	    || decode_part(slash + 1, strlen(slash + 1), out->database, sizeof out->database) != 0) {
		snprintf(err, errlen, "malformed user, host, port or database; expected %s", example);
		return -1;
	}
	if (out->host[0] == '\0')
		strcpy(out->host, "localhost");
	return 0;
}

int db_url_parse(const char *text, struct db_url *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	const char *rest = match_scheme(text, &out->kind);
	if (!rest) {
		snprintf(err, errlen,
			 "unknown scheme; expected sqlite:///path.db, mysql://user:pass@host:port/db "
			 "or postgresql://user:pass@host:port/db");
		return -1;
	}
	if (out->kind == DB_SQLITE)
		return parse_sqlite(rest, out, err, errlen);
	return parse_server(rest, out, err, errlen);
}

void db_url_masked(const char *text, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s", text);
	char *scheme_end = strstr(out, "://");
	if (!scheme_end)
		return;
	char *authority = scheme_end + 3;
	char *slash = strchr(authority, '/');
	char *at = NULL;
	for (char *p = authority; *p && (!slash || p < slash); p++)
		if (*p == '@')
			at = p;
	if (!at)
		return;
	char *colon = memchr(authority, ':', (size_t)(at - authority));
	if (!colon)
		return;
	char tail[4096];
	snprintf(tail, sizeof tail, "%s", at);
	snprintf(colon, outlen - (size_t)(colon - out), ":***%s", tail);
}
