#include "backend.h"

#include <stdarg.h>
#include <stdio.h>

extern const struct backend sqlite_backend;
#ifdef HAVE_MYSQL
extern const struct backend mysql_backend;
#endif
#ifdef HAVE_PG
extern const struct backend pg_backend;
#endif

const struct backend *backend_for(enum db_kind kind)
{
	switch (kind) {
	case DB_SQLITE:
		return &sqlite_backend;
	case DB_MYSQL:
#ifdef HAVE_MYSQL
		return &mysql_backend;
#else
		return NULL;
#endif
	case DB_POSTGRESQL:
#ifdef HAVE_PG
		return &pg_backend;
#else
		return NULL;
#endif
	}
	return NULL;
}

const char *backends_built(void)
{
	return "sqlite"
#ifdef HAVE_MYSQL
	       ",mysql"
#endif
#ifdef HAVE_PG
	       ",postgresql"
#endif
		;
}

int db_fail(struct db_conn *c, const char *fmt, ...)
{
	char raw[DB_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	snprintf(c->error, sizeof c->error, "%s", raw);
	return -1;
}

int backend_connect(const struct backend *backend, const struct db_url *url,
		    const struct session_options *session, struct db_conn **out, char *err,
		    size_t errlen)
{
	if (backend->connect(url, session, out, err, errlen) != 0)
		return -1;
	(*out)->backend = backend;
	return 0;
}

void connect_error_message(const char *url_text, const char *err, char *out, size_t outlen)
{
	char masked[4096];
	db_url_masked(url_text, masked, sizeof masked);
	snprintf(out, outlen, "cannot connect to %s: %s", masked, err);
}

void report_missing_backend(enum db_kind kind)
{
	fprintf(stderr, "iibench: error: this iibench was built without %s support "
			"(install %s and rebuild); it supports: %s\n", db_kind_name(kind),
		kind == DB_MYSQL ? "libmariadb-dev" : "libpq-dev", backends_built());
}
