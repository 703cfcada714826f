package pyext

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/memview/memview/memview"
)

// Blocks lent to C's creation cache (core_blocks.c). mv.empty and mv.zeros of
// small host arrays take their memory from blocks the cache asked Go for in
// batches, and make the array object in C: Go is not called per array. Each
// block is a Buffer of the default pool, held here by address until C gives it
// back (mvgo_blocks_put) or Go code is handed the array over it
// (mvgo_block_adopt: the buffer then belongs to a Go array like any other).
//
// Counting: a lent block is live memory of its pool from the batch on. The
// cache counts what it hands its users; mvgo_blocks_sync makes the pool's
// NumAllocations and TotalBytesAllocated say what was handed out (a block
// handed out three times counts three allocations; one never handed out,
// none) with Pool.Recount. C syncs, and gives back every cached block, before
// any statistics are read from Python and whenever the default pool changes.
var lent = struct {
	sync.Mutex
	blocks map[uintptr]*memview.Buffer
	pool   *memview.Pool // the pool of the blocks lent since the last sync
	n      int64         // blocks lent since the last sync
	bytes  int64         // their bytes
}{blocks: map[uintptr]*memview.Buffer{}}

// cacheable says whether the cache may serve p's allocations: a pool over one
// of the stock host backends, whose statistics are all it keeps. Pools that
// log, check or proxy each allocation (and any other allocator) are served
// one allocation per array, so that their records name each one.
func cacheable(p *memview.Pool) bool {
	switch p.Allocator().(type) {
	case *memview.HostAllocator, *memview.MmapAllocator:
		return true
	}
	return false
}

// mvgo_blocks_get lends C up to n zero-filled blocks of nbytes bytes from the
// default pool, writing their addresses to ptrs; it returns how many (at least
// one); 0 when the default pool is not one the cache may serve (C makes its
// arrays through Go until the default pool changes); -2 when the default pool
// is not the pool of the blocks lent since the last sync (Go code chose
// another: C syncs and asks again); or -1 with e set when not even one block
// could be had.
//
//export mvgo_blocks_get
func mvgo_blocks_get(nbytes C.int64_t, n C.int, ptrs *C.uintptr_t, e *C.mv_err) (got C.int) {
	rc := C.int(0)
	defer func() {
		if rc != 0 {
			got = -1
		}
	}()
	defer guard(e, &rc)
	p := memview.DefaultPool()
	if !cacheable(p) || nbytes <= 0 || n <= 0 {
		return 0
	}
	lent.Lock()
	defer lent.Unlock()
	if lent.pool != nil && lent.pool != p {
		return -2
	}
	out := unsafe.Slice(ptrs, int(n))
	for got < n {
		b, err := memview.NewBuffer(p, int(nbytes))
		if err != nil {
			if got > 0 {
				break
			}
			rc = setErr(e, fmt.Errorf("memview: %d bytes for a new array: %w", int64(nbytes), err))
			return -1
		}
		lent.blocks[uintptr(b.Pointer())] = b
		out[got] = C.uintptr_t(uintptr(b.Pointer())) // a word, not a pointer store (storeCPtr)
		got++
	}
	lent.pool = p
	lent.n += int64(got)
	lent.bytes += int64(got) * int64(blockCapacity(nbytes))
	return got
}

// blockCapacity is what the pool counts for a block of nbytes: its capacity,
// nbytes rounded up to 64 (memview.NewBuffer).
func blockCapacity(nbytes C.int64_t) int64 { return (int64(nbytes) + 63) &^ 63 }

// mvgo_blocks_put takes back n blocks C no longer uses; they go back to their
// pool. A block Go does not know (never lent, or adopted) is skipped.
//
//export mvgo_blocks_put
func mvgo_blocks_put(ptrs *C.uintptr_t, n C.int) {
	defer func() { _ = recover() }()
	lent.Lock()
	defer lent.Unlock()
	for _, ptr := range unsafe.Slice(ptrs, int(n)) {
		if b, ok := lent.blocks[uintptr(ptr)]; ok {
			delete(lent.blocks, uintptr(ptr))
			_ = b.Release()
		}
	}
}

// mvgo_blocks_sync counts what the cache handed out since the last sync
// (handed blocks of handedBytes bytes in all, each block's size rounded up to
// 64 as the pool counts it) in place of what was lent to it.
//
//export mvgo_blocks_sync
func mvgo_blocks_sync(handed, handedBytes C.int64_t) {
	defer func() { _ = recover() }()
	lent.Lock()
	defer lent.Unlock()
	if lent.pool != nil {
		lent.pool.Recount(int64(handed)-lent.n, int64(handedBytes)-lent.bytes)
	}
	lent.pool, lent.n, lent.bytes = nil, 0, 0
}

// mvgo_blocks_lent is the number of blocks lent to C and not yet given back
// or adopted (for tests).
//
//export mvgo_blocks_lent
func mvgo_blocks_lent() C.int64_t {
	lent.Lock()
	defer lent.Unlock()
	return C.int64_t(len(lent.blocks))
}

// The handles of adopted blocks: the arrays over them were made in C and are
// counted by their pool's statistics (and by the blocks lent, until adopted),
// not by liveHandles, whether Go was handed them or not.
var (
	adopted     sync.Map // handle -> struct{}
	adoptedLive atomic.Int64
)

// forgetAdopted is called as a handle goes.
func forgetAdopted(h uintptr) {
	if _, ok := adopted.LoadAndDelete(h); ok {
		adoptedLive.Add(-1)
	}
}

// mvgo_block_adopt makes a Go array over a lent block, which belongs to the
// array from then on (its last reference frees it to its pool): shape and
// strides in bytes, element 0 at the block's start, the item type as C names
// it (its dtype name, else its format). The new handle goes to *h.
//
//export mvgo_block_adopt
func mvgo_block_adopt(ptr unsafe.Pointer, dtype, format *C.char, ndim C.int, shape, strides *C.int64_t,
	h *C.uintptr_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := adoptDType(C.GoString(dtype), C.GoString(format))
	if err != nil {
		return setErr(e, err)
	}
	if err := roomForHandle(); err != nil {
		return setErr(e, err)
	}
	lent.Lock()
	b, ok := lent.blocks[uintptr(ptr)]
	lent.Unlock()
	if !ok {
		return setErr(e, fmt.Errorf("memview: the array's memory block %#x is unknown to Go: %w", uintptr(ptr), errInternal))
	}
	a, err := memview.NewArray(b, dt, ints(shape, ndim), ints(strides, ndim), 0, false)
	if err != nil {
		return setErr(e, err)
	}
	lent.Lock()
	delete(lent.blocks, uintptr(ptr))
	lent.Unlock()
	_ = b.Release() // the array holds its own reference
	hd := newHandle(a)
	adopted.Store(hd, struct{}{})
	adoptedLive.Add(1)
	*h = C.uintptr_t(hd)
	return 0
}

// adoptDType finds the item type an array made in C was made with, from the
// name and format C shows for it: the one that reads back as both (as
// memview.Empty and a copy make it, its Normal type), else the first spelling that parses (the layout is the same).
func adoptDType(name, format string) (memview.DType, error) {
	var first memview.DType
	var firstErr error
	for _, parse := range []func() (memview.DType, error){
		func() (memview.DType, error) { return memview.ParseDType(name) },
		func() (memview.DType, error) { return memview.ParseDType(format) },
		func() (memview.DType, error) { return memview.ParseDTypeOrFormat(format) },
	} {
		dt, err := parse()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !first.IsValid() {
			first = dt
		}
		for _, d := range []memview.DType{dt, dt.Normal()} {
			if d.Name() == name && d.Format() == format {
				return d, nil
			}
		}
	}
	if first.IsValid() {
		return first, nil
	}
	return memview.DType{}, firstErr
}

// mvgo_create_info describes the array mv.empty makes for a dtype spelled
// name (memview.Empty's item type, the Normal type of its layout); it fails
// as Empty would.
//
//export mvgo_create_info
func mvgo_create_info(name *C.char, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := memview.ParseDType(C.GoString(name))
	if err != nil {
		return setErr(e, err)
	}
	dt = dt.Normal()
	m.itemsize = C.int64_t(dt.Itemsize())
	putDType(m, dt)
	return 0
}
