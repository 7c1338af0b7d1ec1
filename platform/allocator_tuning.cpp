#include "platform/allocator_tuning.h"

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace trainvp {

void tune_allocator() {
#if defined(__GLIBC__)
    // Blocks up to 32 MiB come from the heap (a fixed threshold: glibc's default one starts at
    // 128 KiB and adapts), and the heap keeps up to 256 MiB free at its top before it trims.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    if (std::getenv("TRAINVP_THP") == nullptr) {
        mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
        return;
    }
    const std::size_t reserve = std::size_t{std::strtoull(std::getenv("TRAINVP_THP"), nullptr, 10)} << 20;
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(2000u << 20));
    mallopt(M_TOP_PAD, static_cast<int>(reserve));
    void* p = std::malloc(4u << 20);
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    const auto hi = reinterpret_cast<std::uintptr_t>(sbrk(0));
    const std::uintptr_t huge = std::uintptr_t{2} << 20;
    const std::uintptr_t s = (lo + huge - 1) & ~(huge - 1), e = hi & ~(huge - 1);
    if (e > s) madvise(reinterpret_cast<void*>(s), e - s, MADV_HUGEPAGE);
    std::free(p);
    mallopt(M_TOP_PAD, 0);
#endif
}

}  // namespace trainvp
