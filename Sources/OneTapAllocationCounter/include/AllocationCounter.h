// Counts heap allocations for OneTapBenchmarks. On Linux this target replaces malloc, calloc, realloc,
// posix_memalign and aligned_alloc with counting wrappers over glibc's own (__libc_*); the benchmark
// executable exports them (--export-dynamic), so every allocation in the process, from the Swift runtime,
// the standard library, Foundation and OneTap, is counted.
#ifndef ONETAP_ALLOCATION_COUNTER_H
#define ONETAP_ALLOCATION_COUNTER_H

/// The number of allocation calls so far, by every thread.
unsigned long onetap_allocation_count(void);

/// The number of allocation calls so far by the calling thread.
unsigned long onetap_thread_allocation_count(void);

/// Whether allocations are being counted (1 on Linux/glibc, 0 elsewhere).
int onetap_allocation_counting_available(void);

#endif
