#include "platform/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace trainvp {

void tune_allocator() {
#if defined(__GLIBC__)
    // Blocks up to 32 MiB come from the heap (a fixed threshold: glibc's default one starts at
    // 128 KiB and adapts), and the heap keeps up to 256 MiB free at its top before it trims.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

}  // namespace trainvp
