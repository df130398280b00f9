#pragma once
// configureAllocator(): first thing in a process that shows the explorer
// (its main, the UI tests' and benchmarks' mains). Small blocks that jobs
// free are then coalesced at once, on the thread that frees them. glibc's
// fastbins defer that until some later large allocation, which then sorts
// them all; after a job freed a million tensors' worth of blocks, that
// allocation was the GUI thread's next repaint: 130 ms of a
// 1,000,000-tensor comparison (bench_open_stall; perf: malloc_consolidate
// under QRegion::operator+=).

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ckpt::ui {

inline void configureAllocator() {
#ifdef __GLIBC__
    mallopt(M_MXFAST, 0);  // no fastbins: a free coalesces now (mallopt(3))
#endif
}

}  // namespace ckpt::ui
