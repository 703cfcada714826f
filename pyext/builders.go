package pyext

/*
#include <stdint.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/memview/memview/memview"
)

// The Go half of memview.Builder (mem_builder.c). C converts and writes the items
// itself, straight into the builder's memory, and calls Go only to grow it and
// to finish: the builder's length lives in C between those calls.

// builder is what a Builder object's handle names.
type builder struct {
	b  *memview.BufferBuilder
	dt memview.DType
}

func builderOf(h C.uintptr_t) (*builder, error) {
	b, ok := builderHandles.get(uintptr(h))
	if !ok {
		return nil, fmt.Errorf("memview: operation on a released builder: %w", memview.ErrReleased)
	}
	return b, nil
}

// mvgo_builder_new makes a builder of dtype items allocating from the pool with
// id pool (0: the default), which must be host memory.
//
//export mvgo_builder_new
func mvgo_builder_new(dtype *C.char, pool C.uint64_t, h *C.uintptr_t, itemsize *C.int64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := memview.ParseDType(C.GoString(dtype))
	if err != nil {
		return setErr(e, err)
	}
	dt = dt.Normal() // the arrays it finishes are new memory
	p, err := poolByID(pool)
	if err != nil {
		return setErr(e, err)
	}
	if p != nil && !p.Device().HostAccessible() {
		return setErr(e, fmt.Errorf("memview: a builder needs memory the CPU can write, not %s: %w", p.Device(), memview.ErrInvalid))
	}
	if err := roomForHandle(); err != nil {
		return setErr(e, err)
	}
	*itemsize = C.int64_t(dt.Itemsize())
	*h = C.uintptr_t(builderHandles.put(&builder{b: memview.NewBufferBuilder(p), dt: dt}))
	return 0
}

// sync tells the Go builder that C has written up to n bytes.
func (b *builder) sync(n C.int64_t) error {
	return b.b.Advance(int(n) - b.b.Len())
}

// mvgo_builder_reserve records that C has written n bytes and makes room for
// additional more (growing by a factor of two), writing the memory's address
// and capacity into data and capacity. It may run without the GIL (mem_builder.c
// does so when 64 KiB or more may be copied).
//
//export mvgo_builder_reserve
func mvgo_builder_reserve(h C.uintptr_t, n, additional C.int64_t, data **C.char, capacity *C.int64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, err := builderOf(h)
	if err == nil {
		err = b.sync(n)
	}
	if err == nil {
		err = b.b.Reserve(int(additional))
	}
	if err != nil {
		return setErr(e, err)
	}
	*capacity = C.int64_t(b.b.Cap())
	storeCPtr(data, nil)
	if b.b.Cap() > 0 {
		storeCPtr(data, unsafe.Pointer(unsafe.SliceData(b.b.Bytes())))
	}
	return 0
}

// mvgo_builder_finish records that C has written n bytes and hands them over
// as a new 1-D array (the builder is empty again).
//
//export mvgo_builder_finish
func mvgo_builder_finish(h C.uintptr_t, n C.int64_t, shrink C.int, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, err := builderOf(h)
	if err == nil {
		err = b.sync(n)
	}
	if err != nil {
		return setErr(e, err)
	}
	items := b.b.Len() / max(b.dt.Itemsize(), 1)
	buf, err := b.b.Finish(shrink != 0)
	if err != nil {
		return setErr(e, err)
	}
	a, err := memview.NewArray(buf, b.dt, []int{items}, nil, 0, false)
	if rerr := buf.Release(); err == nil && rerr != nil {
		err = rerr
	}
	return finish(a, err, m, e)
}

//export mvgo_builder_drop
func mvgo_builder_drop(h C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	b, ok := builderHandles.take(uintptr(h))
	if !ok {
		return setErr(e, fmt.Errorf("memview: release of a released builder: %w", memview.ErrReleased))
	}
	if err := b.b.Reset(); err != nil {
		return setErr(e, err)
	}
	return 0
}
