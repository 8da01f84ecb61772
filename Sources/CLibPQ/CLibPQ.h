// libpq, PostgreSQL's C client library (https://www.postgresql.org/docs/current/libpq.html).
// Debian and Ubuntu: apt install libpq-dev. The include path comes from pkg-config (libpq.pc).
#include <libpq-fe.h>
