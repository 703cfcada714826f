//go:build unix && !linux

package memview

import (
	"errors"
	"fmt"
	"syscall"
)

// sysMap maps n bytes of zeroed anonymous memory.
func sysMap(n int) ([]byte, error) {
	if err := checkAddressSpace(n); err != nil {
		return nil, err
	}
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mmap of %d bytes: %v: %w", n, err, ErrNoMemory)
	}
	return m, nil
}

// sysUnmap unmaps a mapping sysMap made.
func sysUnmap(m []byte) error { return syscall.Munmap(m) }

// sysRemap is not available here: Reallocate copies instead.
func sysRemap(m []byte, n int) ([]byte, error) {
	return nil, errors.New("memview: no mremap on this system")
}

// canRemap says that sysRemap does not work here.
const canRemap = false
