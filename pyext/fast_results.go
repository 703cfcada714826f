package pyext

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/gopyrt"
)

// The generated shims reach these through gopyrt (not as pyext's API, which
// gopy binds).
func init() {
	gopyrt.SliceResult = fastSliceResult
	gopyrt.SliceRelease = fastSliceRelease
}

// fastSliceResult writes to m (an mv_meta) the array a generated call entry
// (gopyfast.py) returns for a Go slice result of n elements of dt at p: the
// *memview.Array over that memory, pinned while any view of it lives
// (memview.WrapGo), read-only where the slice lies in a read-only argument,
// with its handle in the handle table. It is what mvgo_from_gopy makes of
// gopy's object of the slice, without gopy's table and the two calls into Go
// that way takes. The C entry takes the array over (mv_fast_meta_result).
func fastSliceResult(p unsafe.Pointer, n int, dt memview.DType, readonly bool, m unsafe.Pointer) error {
	b := memview.WrapGo(p, n*dt.Itemsize(), readonly)
	a, err := memview.NewArray(b, dt, []int{n}, []int{dt.Itemsize()}, 0, readonly)
	if rerr := b.Release(); err == nil && rerr != nil {
		_ = a.Release()
		err = rerr
	}
	if err == nil {
		if err = roomForHandle(); err != nil {
			_ = a.Release()
		}
	}
	if err != nil {
		return err
	}
	fillMeta(a, (*C.mv_meta)(m))
	return nil
}

// fastSliceRelease gives back an array fastSliceResult wrote to m that no
// Python object took over (a later result of the same call failed).
func fastSliceRelease(m unsafe.Pointer) {
	mm := (*C.mv_meta)(m)
	_ = dropHandle(uintptr(mm.handle))
	C.free(unsafe.Pointer(mm.long_format))
	C.free(unsafe.Pointer(mm.long_dtype))
	mm.handle, mm.long_format, mm.long_dtype = 0, nil, nil
}
