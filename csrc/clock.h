/* The clocks of the compiled modules, in seconds, read without the GIL. The monotonic
 * clock: the search's time budgets (time_ms) and the arena loop's seconds per seat.
 * CLOCK_MONOTONIC is the clock Python's time.perf_counter() reads on Linux, so C and Python
 * timings of one run agree there. POSIX only, as the rest of the build (README: Linux or macOS; WSL on Windows). */
#ifndef GLORY_CLOCK_H
#define GLORY_CLOCK_H
#include <time.h>

static inline double gr_now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU time of the calling thread: the search's budgets of CPU time (cpu_ms), which
 * a busy machine does not shrink the way it shrinks a wall-clock budget (a thread waiting
 * for a core spends no CPU time). */
static inline double gr_thread_cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
