// The C library allocator set for a simulator: a scale run builds and drops a large op list
// per host and iteration (~1 MB each at 1024 nodes).  glibc's defaults hand such blocks back
// to the kernel (mmap per block, heap trimming) and fault them in again on the next host;
// keeping them in the heap cut the 1024-node ring's set-up from 3.1 to 2.1 s at the same peak
// RSS (docs/performance.md).  Call once, first thing in main; a no-op on other C libraries.
#pragma once

namespace trainvp {

void tune_allocator();

}  // namespace trainvp
