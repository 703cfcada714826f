package memview

import (
	"fmt"
	"syscall"
	"unsafe"
)

// On Linux, MmapAllocator maps with the system calls themselves (mapAnon) and
// can move a mapping with mremap, so a buffer that grows keeps its pages
// instead of copying them (as glibc's realloc does for large blocks).

// sysMap maps n bytes of zeroed anonymous memory (after the address-space
// check). The slice is the mapping itself.
func sysMap(n int) ([]byte, error) {
	p, err := mapAnon(n)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), n), nil
}

// sysUnmap unmaps a mapping sysMap or sysRemap made.
func sysUnmap(m []byte) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MUNMAP, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(len(m)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// mremapMayMove is MREMAP_MAYMOVE.
const mremapMayMove = 1

// sysRemap resizes mapping m to n bytes, moving it if it must: what it held
// is kept, pages beyond it are new (zero). Growing is checked against the
// address-space limit first.
func sysRemap(m []byte, n int) ([]byte, error) {
	if n > len(m) {
		if err := checkAddressSpace(n - len(m)); err != nil {
			return nil, err
		}
	}
	r, _, errno := syscall.Syscall6(syscall.SYS_MREMAP, uintptr(unsafe.Pointer(unsafe.SliceData(m))),
		uintptr(len(m)), uintptr(n), mremapMayMove, 0, 0)
	if errno != 0 {
		return nil, fmt.Errorf("mremap of %d to %d bytes: %v: %w", len(m), n, errno, ErrNoMemory)
	}
	// Outside the Go heap; see mapAnon.
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&r))), n), nil
}

// canRemap says that sysRemap works here.
const canRemap = true
