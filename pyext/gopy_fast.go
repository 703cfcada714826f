package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/gopyrt"
)

// The call entries generated for bound packages (gopyfast.py, gopy_fast.c)
// lend a *memview.Array parameter the memory of the argument's Py_buffer as
// memview.from_buffer does (importBuffer), except that the Py_buffer given
// back during the call is left to the C entry (gopyrt.Lend).
func init() {
	gopyrt.ImportBuffer = func(buf unsafe.Pointer, shape []int, strides unsafe.Pointer, itemsize int,
		format string, readonly bool, token unsafe.Pointer, lend *gopyrt.Lend) (*memview.Array, error) {
		const who = "memview.from_buffer"
		dt, err := memview.DTypeOfExport(format, itemsize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", who, err)
		}
		st, lo, hi, err := foreignLayout(who, dt, uintptr(buf), shape, (*C.int64_t)(strides))
		if err != nil {
			return nil, err
		}
		return adopt(who, dt, shape, st, lo, readonly, func(release func()) *memview.Buffer {
			return memview.WrapExternal(unsafe.Add(buf, lo), hi-lo, readonly, release)
		}, nil, func() {
			if !lend.GiveBackInCall() {
				C.mv_release_import(token)
			}
		})
	}
}
