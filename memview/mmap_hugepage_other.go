//go:build unix && !linux

package memview

// adviseHuge does nothing where madvise has no MADV_HUGEPAGE.
func adviseHuge([]byte) {}
