// libpq, PostgreSQL's C client library (https://www.postgresql.org/docs/current/libpq.html).
// Debian and Ubuntu: apt install libpq-dev. The include path comes from pkg-config (libpq.pc).
#include <libpq-fe.h>

// Linux's epoll and eventfd (glibc's headers; Swift's Glibc module leaves them out), for the one thread that waits on
// every connection's socket (PostgresSocketWaiter).
#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
