package pyext

/*
#include <stdlib.h>
#include "bridge.h"
#include "memory_bridge.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// The pools Python's memview.Pool objects name, by id: Python holds an id,
// never a Go pointer. A buffer keeps its pool alive in Go whatever happens to
// the id. Id 0 means the default pool.
var pyPools = struct {
	sync.Mutex
	next uint64
	byID map[uint64]*memview.Pool
}{byID: map[uint64]*memview.Pool{}}

// newPoolID reserves an id for a pool about to be made.
func newPoolID() uint64 {
	pyPools.Lock()
	defer pyPools.Unlock()
	pyPools.next++
	return pyPools.next
}

// setPool gives id to p.
func setPool(id uint64, p *memview.Pool) {
	pyPools.Lock()
	defer pyPools.Unlock()
	pyPools.byID[id] = p
}

// poolByID returns the pool behind id; 0 gives nil (the default pool).
func poolByID(id C.uint64_t) (*memview.Pool, error) {
	if id == 0 {
		return nil, nil
	}
	pyPools.Lock()
	defer pyPools.Unlock()
	p, ok := pyPools.byID[uint64(id)]
	if !ok {
		return nil, fmt.Errorf("memview: no pool with id %d: %w", uint64(id), memview.ErrReleased)
	}
	return p, nil
}

// idOfPool returns p's id, giving it one if it has none.
func idOfPool(p *memview.Pool) uint64 {
	pyPools.Lock()
	for id, q := range pyPools.byID {
		if q == p {
			pyPools.Unlock()
			return id
		}
	}
	pyPools.Unlock()
	id := newPoolID()
	setPool(id, p)
	return id
}

// poolForDevice returns the pool to allocate from on dev: the one chosen by
// id if any (which must be on dev), else the default host pool or dev's pool.
func poolForDevice(id C.uint64_t, dev memview.Device) (*memview.Pool, error) {
	p, err := poolByID(id)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return poolFor(dev)
	}
	if d := p.Device(); d != dev {
		return nil, fmt.Errorf("memview: the pool allocates on %s, not %s: %w", d, dev, memview.ErrInvalid)
	}
	return p, nil
}

// newBackendPool makes a pool over a backend named as MEMVIEW_DEFAULT_POOL
// names them ("host", "mmap"), or over CUDA memory named as a device.
func newBackendPool(name string) (*memview.Pool, error) {
	if p, err := memview.NewBackendPool(name); err == nil {
		return p, nil
	}
	dev, err := memview.ParseDevice(name)
	if err != nil {
		return nil, fmt.Errorf("memview: pool backend %q: want \"host\", \"mmap\" or a CUDA device (\"cuda[:N]\", \"cuda_host\", \"cuda_managed[:N]\"): %w", name, memview.ErrInvalid)
	}
	if dev == (memview.Device{}) {
		return memview.NewBackendPool("host")
	}
	a, err := cuda.NewAllocator(dev)
	if err != nil {
		return nil, err
	}
	return memview.NewPool(a), nil
}

//export mvgo_pool_new
func mvgo_pool_new(kind C.int, name *C.char, inner C.uint64_t, out *C.uint64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	var p *memview.Pool
	id := uint64(0)
	if kind == C.MV_POOL_BACKEND {
		var err error
		if p, err = newBackendPool(C.GoString(name)); err != nil {
			return setErr(e, err)
		}
		id = newPoolID()
	} else {
		in, err := poolByID(inner)
		if err != nil {
			return setErr(e, err)
		}
		if in == nil {
			in = memview.DefaultPool()
		}
		id = newPoolID() // the hooks below name the pool by it
		switch kind {
		case C.MV_POOL_PROXY:
			p = memview.NewProxyPool(in)
		case C.MV_POOL_LOGGING:
			l := memview.NewLoggingAllocator(in, nil)
			l.Log = func(line string) { pyLog(id, line) }
			p = memview.NewPool(l)
		case C.MV_POOL_CHECKED:
			c := memview.NewCheckedAllocator(in)
			c.Origin = pyOrigin
			p = memview.NewPool(c)
		default:
			return setErr(e, fmt.Errorf("memview: pool kind %d: %w", kind, memview.ErrInvalid))
		}
	}
	setPool(id, p)
	*out = C.uint64_t(id)
	return 0
}

//export mvgo_pool_drop
func mvgo_pool_drop(id C.uint64_t) {
	defer func() { _ = recover() }()
	pyPools.Lock()
	defer pyPools.Unlock()
	delete(pyPools.byID, uint64(id))
}

//export mvgo_pool_default
func mvgo_pool_default(set C.uint64_t, out *C.uint64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	if set != 0 {
		p, err := poolByID(set)
		if err != nil {
			return setErr(e, err)
		}
		memview.SetDefaultPool(p)
	}
	*out = C.uint64_t(idOfPool(memview.DefaultPool()))
	return 0
}

// mvgo_pool_stats writes (bytes_allocated, max_memory, total_bytes_allocated,
// num_allocations, num_live) into stats and the backend and device names.
//
//export mvgo_pool_stats
func mvgo_pool_stats(id C.uint64_t, stats *C.int64_t, backend *C.char, nb C.int, device *C.char, nd C.int, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	p, err := poolByID(id)
	if err != nil {
		return setErr(e, err)
	}
	if p == nil {
		p = memview.DefaultPool()
	}
	s := unsafe.Slice((*int64)(unsafe.Pointer(stats)), 5)
	s[0], s[1], s[2], s[3], s[4] = p.BytesAllocated(), p.MaxMemory(), p.TotalBytesAllocated(), p.NumAllocations(), p.NumLive()
	putString(unsafe.Pointer(backend), int(nb), p.BackendName())
	putString(unsafe.Pointer(device), int(nd), p.Device().String())
	return 0
}

// mvgo_pool_leaks writes a JSON list of a checked pool's leak reports into
// *out (malloc'd; the caller frees it).
//
//export mvgo_pool_leaks
func mvgo_pool_leaks(id C.uint64_t, out **C.char, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	p, err := poolByID(id)
	if err != nil {
		return setErr(e, err)
	}
	if p == nil {
		p = memview.DefaultPool()
	}
	leaks := p.Leaks()
	if leaks == nil {
		leaks = []string{}
	}
	j, err := json.Marshal(leaks)
	if err != nil {
		return setErr(e, err)
	}
	storeCPtr(out, unsafe.Pointer(C.CString(string(j))))
	return 0
}

// pyLog hands a logging pool's line to Python (mem_pools.c takes the GIL).
func pyLog(id uint64, line string) {
	cs := C.CString(line)
	defer C.free(unsafe.Pointer(cs))
	C.mv_pool_log(C.uint64_t(id), cs)
}

// pyOrigin is the Python traceback of the allocating thread, for a checked
// pool's records.
func pyOrigin() string {
	buf := make([]byte, 4096)
	n := C.mv_py_origin((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
	return string(buf[:max(0, min(int(n), len(buf)))])
}
