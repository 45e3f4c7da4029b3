// libpq, PostgreSQL's C client (Debian 12: libpq-dev, PostgreSQL 15); pkg-config adds -I/usr/include/postgresql.
#include <libpq-fe.h>
