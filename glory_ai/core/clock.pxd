# The one monotonic clock of the compiled modules (csrc/clock.h): seconds as a double, read
# without the GIL; the clock of time.perf_counter(). The search's time budgets and the arena
# loop's per-seat seconds use it:
#
#     from glory_ai.core.clock cimport gr_now_seconds
#
# and gr_thread_cpu_seconds, the calling thread's CPU time (the search's cpu_ms budgets).
#
# (a declaration only: there is no glory_ai.core.clock module to import at run time).

cdef extern from "clock.h" nogil:
    double gr_now_seconds() noexcept
    double gr_thread_cpu_seconds() noexcept
