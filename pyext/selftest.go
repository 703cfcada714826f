//go:build memview_selftest

package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/memview"
)

// The test build (build.py test, -tags memview_selftest) adds
// memview._core._selftest_panic (selftest.c): a Go function C calls that
// panics on purpose, to prove guard turns the panic into SystemError; and the
// Go core's indexing, transpose and reshape (_core._go_view, _go_transpose,
// _go_reshape), the oracle tests/test_views_c.py holds C's layouts to. The
// product extension has no such functions: C computes every view.

//export mvgo_selftest_panic
func mvgo_selftest_panic(e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	var m map[string]int
	m["a panic on purpose"] = 1 // assignment to a nil map: a real runtime panic
	return 0
}

//export mvgo_index
func mvgo_index(h C.uintptr_t, n C.int, idx *C.mv_index, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	var keys []memview.Index
	if n > 0 {
		for _, k := range unsafe.Slice(idx, int(n)) {
			switch k.kind {
			case 0:
				keys = append(keys, memview.Int(int(k.value)))
			case 1:
				keys = append(keys, memview.Index{Kind: memview.IndexSlice,
					Start: int(k.start), Stop: int(k.stop), Step: int(k.step),
					HasStart: k.has_start != 0, HasStop: k.has_stop != 0})
			case 2:
				keys = append(keys, memview.Ellipsis())
			case 3:
				keys = append(keys, memview.NewAxis())
			default:
				return setErr(e, fmt.Errorf("memview: bad index kind %d: %w", k.kind, memview.ErrIndex))
			}
		}
	}
	return derive(h, m, e, func(a *memview.Array) (*memview.Array, error) { return a.Index(keys...) })
}

//export mvgo_transpose
func mvgo_transpose(h C.uintptr_t, n C.int, axes *C.int64_t, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return derive(h, m, e, func(a *memview.Array) (*memview.Array, error) { return a.Transpose(ints(axes, n)...) })
}

//export mvgo_reshape
func mvgo_reshape(h C.uintptr_t, n C.int, shape *C.int64_t, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	return derive(h, m, e, func(a *memview.Array) (*memview.Array, error) { return a.Reshape(ints(shape, n)...) })
}
