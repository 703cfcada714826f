package memview

import "syscall"

// hugePageMin is the size from which MmapAllocator asks Linux for transparent
// huge pages (madvise MADV_HUGEPAGE), as NumPy does for large arrays: first
// touches then fault in 2 MiB at a time instead of 4 KiB, which is most of the
// cost of writing fresh memory. Systems with huge pages off ignore the advice.
const hugePageMin = 4 << 20

// adviseHuge asks for huge pages for a large mapping; failure is harmless.
func adviseHuge(m []byte) {
	if len(m) >= hugePageMin {
		_ = syscall.Madvise(m, syscall.MADV_HUGEPAGE)
	}
}
