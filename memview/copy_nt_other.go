//go:build !amd64 || race || purego

package memview

import "unsafe"

// copyLarge copies n bytes from s to d, which must not overlap. (On amd64,
// outside race builds, large copies use non-temporal stores instead.)
func copyLarge(d, s unsafe.Pointer, n int) { memmove(d, s, n) }
