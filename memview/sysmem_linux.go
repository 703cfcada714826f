package memview

import (
	"fmt"
	"syscall"
	"unsafe"
)

// mapAnon maps n bytes of zeroed, private, anonymous memory with the mmap
// system call itself. (syscall.Mmap records every mapping in a map on the Go
// heap and refuses to unmap part of one; the slab allocator needs neither.)
// An address space limit that would leave too little room for the Go runtime
// and Python is checked first (see checkAddressSpace).
func mapAnon(n int) (unsafe.Pointer, error) {
	if err := checkAddressSpace(n); err != nil {
		return nil, err
	}
	r, _, errno := syscall.Syscall6(syscall.SYS_MMAP, 0, uintptr(n),
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE, ^uintptr(0), 0)
	if errno != 0 {
		return nil, fmt.Errorf("mmap of %d bytes: %v: %w", n, errno, ErrNoMemory)
	}
	// The address is outside the Go heap; reinterpreting the bits says so
	// (and keeps go vet's unsafeptr check meaningful).
	return *(*unsafe.Pointer)(unsafe.Pointer(&r)), nil
}

// unmap unmaps n bytes at p, which mapAnon mapped (whole or in part). A
// failure can only leak the range, so it is ignored.
func unmap(p unsafe.Pointer, n int) {
	_, _, _ = syscall.Syscall(syscall.SYS_MUNMAP, uintptr(p), uintptr(n), 0)
}
