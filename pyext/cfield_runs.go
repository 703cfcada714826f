package pyext

/*
#include <stdlib.h>
#include <stdint.h>
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/memview/memview/memview"
)

// The bytes of a dtype's items that its fields hold (memview.DType.FieldRuns)
// cross to C once per dtype, as a block of C memory that is never freed, as
// the Go core keeps every format type it has seen: C's writes into existing
// memory (a forked child's copies and fills, and element writes) touch only
// those bytes, so that a record's gaps, which may be other fields of the same
// memory, are left as they are. Arrays hold the pointer (mv_meta.runs), which
// stays valid in a forked child.

var cRuns sync.Map // memview.DType -> unsafe.Pointer: runs[0] pairs after it

// fieldRunsC returns dt's runs in C memory, or nil when its fields fill its
// items (every basic dtype).
func fieldRunsC(dt memview.DType) unsafe.Pointer {
	runs := dt.FieldRuns()
	if runs == nil {
		return nil
	}
	if p, ok := cRuns.Load(dt); ok {
		return p.(unsafe.Pointer)
	}
	p := C.malloc(C.size_t(8 * (1 + 2*len(runs))))
	if p == nil {
		panic("memview: out of memory for a dtype's field runs")
	}
	w := unsafe.Slice((*int64)(p), 1+2*len(runs))
	w[0] = int64(len(runs))
	for k, r := range runs {
		w[1+2*k], w[2+2*k] = int64(r.Offset), int64(r.Len)
	}
	if old, loaded := cRuns.LoadOrStore(dt, p); loaded {
		C.free(p)
		return old.(unsafe.Pointer)
	}
	return p
}
