package pyext

/*
#include <stdint.h>
#include "bridge.h"
#include "foreign.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/memview"
)

// Imports through the exchange protocols (DLPack, Arrow): C has read the
// producer's structure into a pointer, a shape, byte strides and a dtype name; Go
// checks the layout (foreignLayout) and wraps the span it reaches, on the device
// C names. The token's release runs once, when the last reference goes — and
// only if the import succeeded: on failure C still owns the token.

//export mvgo_import_foreign
func mvgo_import_foreign(ptr C.uintptr_t, ndim C.int, shape, strides *C.int64_t, dtype *C.char,
	readonly C.int, devKind, devID C.int, token unsafe.Pointer, who *C.char, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	a, err := importForeign(C.GoString(who), uintptr(ptr), ints(shape, ndim), strides, C.GoString(dtype),
		readonly != 0, memview.Device{Kind: memview.DeviceKind(devKind), ID: int(devID)}, token)
	return finish(a, err, m, e)
}

func importForeign(who string, ptr uintptr, shape []int, cstrides *C.int64_t, dtype string,
	readonly bool, dev memview.Device, token unsafe.Pointer) (*memview.Array, error) {
	dt, err := memview.ParseDType(dtype) // a NumPy name: one map lookup
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	if dev.Kind > memview.CUDAManaged || dev.ID < 0 {
		return nil, fmt.Errorf("%s: unknown device %v: %w", who, dev, memview.ErrInvalid)
	}
	strides, lo, hi, err := foreignLayout(who, dt, ptr, shape, cstrides)
	if err != nil {
		return nil, err
	}
	if ptr == 0 && hi > lo {
		return nil, fmt.Errorf("%s: null data pointer for a non-empty array: %w", who, memview.ErrInvalid)
	}
	if uintptr(-lo) > ptr {
		return nil, fmt.Errorf("%s: strides reach below address 0: %w", who, memview.ErrInvalid)
	}
	if hi > lo && ptr > ^uintptr(0)-uintptr(hi-1) {
		return nil, fmt.Errorf("%s: %d bytes at %#x reach past the end of the address space: %w", who, hi, ptr, memview.ErrInvalid)
	}
	return adopt(who, dt, shape, strides, lo, readonly, func(release func()) *memview.Buffer {
		return memview.WrapDevice(ptr-uintptr(-lo), hi-lo, readonly, dev, release)
	}, nil, func() { C.mv_release_foreign(token) })
}
