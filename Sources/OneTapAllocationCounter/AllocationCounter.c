#include "AllocationCounter.h"
#include <stddef.h>
#if defined(__linux__)
#include <features.h>
#endif

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static unsigned long allocations = 0;
// The calling thread's own count: a synchronous benchmark row counts only what its thread allocated, never a
// background thread's work (URLSession's, a connection pool's) that happens to run meanwhile.
static __thread unsigned long thread_allocations = 0;

static inline void count(void) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    thread_allocations += 1;
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t count_, size_t size) { count(); return __libc_calloc(count_, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    count();
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

unsigned long onetap_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
unsigned long onetap_thread_allocation_count(void) { return thread_allocations; }
int onetap_allocation_counting_available(void) { return 1; }
#else
unsigned long onetap_allocation_count(void) { return 0; }
unsigned long onetap_thread_allocation_count(void) { return 0; }
int onetap_allocation_counting_available(void) { return 0; }
#endif
