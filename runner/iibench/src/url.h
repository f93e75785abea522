/* The --db URL, in the forms django-environ reads. */
#ifndef IIBENCH_URL_H
#define IIBENCH_URL_H

#include <stdbool.h>
#include <stddef.h>

enum db_kind { DB_SQLITE, DB_MYSQL, DB_POSTGRESQL };

struct db_url {
	enum db_kind kind;
	char user[128];
	char password[128];
	bool has_password;
	char host[256];
	unsigned port;          /* 0: the client library's default */
	char database[256];
	char path[4096];        /* SQLite file */
};

/* sqlite:///relative.db, sqlite:////absolute/path.db,
 * mysql://user:pass@host:port/db (also mariadb://),
 * postgresql://user:pass@host:port/db (also postgres://).
 * Returns 0, or -1 with a message a person can act on in err. */
int db_url_parse(const char *text, struct db_url *out, char *err, size_t errlen);

/* The URL with its password replaced by "***", for anything printed. */
void db_url_masked(const char *text, char *out, size_t outlen);

const char *db_kind_name(enum db_kind kind);

#endif
