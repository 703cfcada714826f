package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The CUDA driver entry points memview uses, found with dlsym so that nothing
// of CUDA is needed to build or load memview. Types follow cuda.h: CUresult is
// an int, CUdeviceptr an unsigned 64-bit integer, contexts, streams and events
// opaque pointers (passed to and from Go as uintptr_t).
typedef unsigned long long cu_dptr;

// cu_memcpy2d has the layout of CUDA_MEMCPY2D (cuda.h, cuMemcpy2D's reference).
typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	cu_dptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	cu_dptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} cu_memcpy2d;

// mv_copy2d is one 2-D copy as Go plans it (see plan.go); addresses are
// unified virtual addresses.
typedef struct {
	uint64_t dst, src, dst_pitch, src_pitch, width, height;
} mv_copy2d;

static struct {
	int (*init)(unsigned int);
	int (*device_get_count)(int *);
	int (*device_get)(int *, int);
	int (*pointer_get_attribute)(void *, int, cu_dptr);
	int (*primary_ctx_retain)(void **, int);
	int (*ctx_get_current)(void **);
	int (*ctx_set_current)(void *);
	int (*mem_alloc)(cu_dptr *, size_t);
	int (*mem_free)(cu_dptr);
	int (*mem_host_alloc)(void **, size_t, unsigned int);
	int (*mem_free_host)(void *);
	int (*mem_alloc_managed)(cu_dptr *, size_t, unsigned int);
	int (*memset_d8_async)(cu_dptr, unsigned char, size_t, void *);
	int (*memset_d16_async)(cu_dptr, unsigned short, size_t, void *);
	int (*memset_d32_async)(cu_dptr, unsigned int, size_t, void *);
	int (*memset_d2d32_async)(cu_dptr, size_t, unsigned int, size_t, size_t, void *);
	int (*memcpy_async)(cu_dptr, cu_dptr, size_t, void *);
	int (*memcpy2d_async)(const cu_memcpy2d *, void *);
	int (*stream_create)(void **, unsigned int);
	int (*stream_destroy)(void *);
	int (*stream_synchronize)(void *);
	int (*stream_query)(void *);
	int (*stream_wait_event)(void *, void *, unsigned int);
	int (*event_create)(void **, unsigned int);
	int (*event_destroy)(void *);
	int (*event_record)(void *, void *);
	int (*event_synchronize)(void *);
} cu;

// The symbol of each entry point: the versioned names (_v2) are the ones cuda.h
// maps the plain names to.
static const struct { const char *name; size_t off; } cu_syms[] = {
	{"cuInit", offsetof(__typeof__(cu), init)},
	{"cuDeviceGetCount", offsetof(__typeof__(cu), device_get_count)},
	{"cuDeviceGet", offsetof(__typeof__(cu), device_get)},
	{"cuPointerGetAttribute", offsetof(__typeof__(cu), pointer_get_attribute)},
	{"cuDevicePrimaryCtxRetain", offsetof(__typeof__(cu), primary_ctx_retain)},
	{"cuCtxGetCurrent", offsetof(__typeof__(cu), ctx_get_current)},
	{"cuCtxSetCurrent", offsetof(__typeof__(cu), ctx_set_current)},
	{"cuMemAlloc_v2", offsetof(__typeof__(cu), mem_alloc)},
	{"cuMemFree_v2", offsetof(__typeof__(cu), mem_free)},
	{"cuMemHostAlloc", offsetof(__typeof__(cu), mem_host_alloc)},
	{"cuMemFreeHost", offsetof(__typeof__(cu), mem_free_host)},
	{"cuMemAllocManaged", offsetof(__typeof__(cu), mem_alloc_managed)},
	{"cuMemsetD8Async", offsetof(__typeof__(cu), memset_d8_async)},
	{"cuMemsetD16Async", offsetof(__typeof__(cu), memset_d16_async)},
	{"cuMemsetD32Async", offsetof(__typeof__(cu), memset_d32_async)},
	{"cuMemsetD2D32Async", offsetof(__typeof__(cu), memset_d2d32_async)},
	{"cuMemcpyAsync", offsetof(__typeof__(cu), memcpy_async)},
	{"cuMemcpy2DAsync_v2", offsetof(__typeof__(cu), memcpy2d_async)},
	{"cuStreamCreate", offsetof(__typeof__(cu), stream_create)},
	{"cuStreamDestroy_v2", offsetof(__typeof__(cu), stream_destroy)},
	{"cuStreamSynchronize", offsetof(__typeof__(cu), stream_synchronize)},
	{"cuStreamQuery", offsetof(__typeof__(cu), stream_query)},
	{"cuStreamWaitEvent", offsetof(__typeof__(cu), stream_wait_event)},
	{"cuEventCreate", offsetof(__typeof__(cu), event_create)},
	{"cuEventDestroy_v2", offsetof(__typeof__(cu), event_destroy)},
	{"cuEventRecord", offsetof(__typeof__(cu), event_record)},
	{"cuEventSynchronize", offsetof(__typeof__(cu), event_synchronize)},
};

static void *cu_lib;
static const char *cu_missing; // the first entry point not found

// cu_load opens libcuda.so.1 and resolves the entry points: 0 on success,
// -1 when there is no driver library, -2 when a symbol is missing.
static int cu_load(void) {
	if (cu_lib != NULL)
		return 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return -1;
	for (size_t i = 0; i < sizeof cu_syms / sizeof cu_syms[0]; i++) {
		void *f = dlsym(h, cu_syms[i].name);
		if (f == NULL) {
			cu_missing = cu_syms[i].name;
			dlclose(h);
			return -2;
		}
		*(void **)((char *)&cu + cu_syms[i].off) = f;
	}
	cu_lib = h;
	return 0;
}

static const char *cu_missing_name(void) { return cu_missing; }
static int cu_call_init(void) { return cu.init(0); }
static int cu_call_device_get_count(int *n) { return cu.device_get_count(n); }

// CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL is 9 in cuda.h.
static int cu_call_pointer_device(uintptr_t ptr, int *ordinal) {
	return cu.pointer_get_attribute(ordinal, 9, ptr);
}

static int cu_call_primary_ctx(int ordinal, uintptr_t *ctx) {
	int dev;
	int rc = cu.device_get(&dev, ordinal);
	if (rc != 0)
		return rc;
	void *c;
	rc = cu.primary_ctx_retain(&c, dev);
	*ctx = (uintptr_t)c;
	return rc;
}

// Every call that needs a context makes ctx current on the calling thread and
// puts back whatever was current before, all inside one C call, so it is
// correct however goroutines move between threads, and it leaves the current
// device of CuPy, Numba or PyTorch on this thread as it was.
static int ctx_enter(uintptr_t ctx, void **prev) {
	int rc = cu.ctx_get_current(prev);
	if (rc != 0 || *prev == (void *)ctx)
		return rc;
	return cu.ctx_set_current((void *)ctx);
}
static void ctx_leave(uintptr_t ctx, void *prev) {
	if (prev != (void *)ctx)
		cu.ctx_set_current(prev);
}
#define IN_CTX(ctx, call)                          \
	do {                                           \
		void *prev_;                               \
		int rc_ = ctx_enter((ctx), &prev_);        \
		if (rc_ != 0)                              \
			return rc_;                            \
		rc_ = (call);                              \
		ctx_leave((ctx), prev_);                   \
		return rc_;                                \
	} while (0)

// Memory: kind 0 device, 1 pinned host, 2 managed. New device and managed memory
// is zero-filled on the private stream zs, which is then synchronised, so the
// memory is ready for any stream when this returns; pinned memory is cleared by
// the CPU.
static int alloc_zeroed(int kind, size_t n, uintptr_t zs, uintptr_t *out) {
	cu_dptr d = 0;
	void *h = NULL;
	int rc;
	switch (kind) {
	case 0: rc = cu.mem_alloc(&d, n); break;
	case 1: rc = cu.mem_host_alloc(&h, n, 0x1 | 0x2); d = (cu_dptr)(uintptr_t)h; break; // PORTABLE | DEVICEMAP
	default: rc = cu.mem_alloc_managed(&d, n, 0x1); break;                           // ATTACH_GLOBAL
	}
	if (rc != 0)
		return rc;
	if (kind == 1) { // pinned host memory: the CPU clears it
		memset(h, 0, n);
		*out = (uintptr_t)h;
		return 0;
	}
	rc = cu.memset_d8_async(d, 0, n, (void *)zs);
	if (rc == 0)
		rc = cu.stream_synchronize((void *)zs);
	if (rc != 0) {
		if (kind == 1)
			cu.mem_free_host(h);
		else
			cu.mem_free(d);
		return rc;
	}
	*out = (uintptr_t)d;
	return 0;
}
static int cu_call_alloc(uintptr_t ctx, int kind, size_t n, uintptr_t zs, uintptr_t *out) {
	IN_CTX(ctx, alloc_zeroed(kind, n, zs, out));
}
static int cu_call_free(uintptr_t ctx, int kind, uintptr_t p) {
	IN_CTX(ctx, kind == 1 ? cu.mem_free_host((void *)p) : cu.mem_free((cu_dptr)p));
}

// Streams and events.
static int cu_call_stream_create(uintptr_t ctx, unsigned int flags, uintptr_t *s) {
	void *p = NULL;
	int rc;
	void *prev;
	if ((rc = ctx_enter(ctx, &prev)) != 0)
		return rc;
	rc = cu.stream_create(&p, flags);
	ctx_leave(ctx, prev);
	*s = (uintptr_t)p;
	return rc;
}
static int cu_call_stream_destroy(uintptr_t ctx, uintptr_t s) { IN_CTX(ctx, cu.stream_destroy((void *)s)); }
static int cu_call_stream_synchronize(uintptr_t ctx, uintptr_t s) { IN_CTX(ctx, cu.stream_synchronize((void *)s)); }
static int cu_call_stream_query(uintptr_t ctx, uintptr_t s) { IN_CTX(ctx, cu.stream_query((void *)s)); }
static int cu_call_stream_wait_event(uintptr_t ctx, uintptr_t s, uintptr_t e) {
	IN_CTX(ctx, cu.stream_wait_event((void *)s, (void *)e, 0));
}
// An event that only orders work: CU_EVENT_DISABLE_TIMING (0x2).
static int cu_call_event_create(uintptr_t ctx, uintptr_t *e) {
	void *p = NULL;
	int rc;
	void *prev;
	if ((rc = ctx_enter(ctx, &prev)) != 0)
		return rc;
	rc = cu.event_create(&p, 0x2);
	ctx_leave(ctx, prev);
	*e = (uintptr_t)p;
	return rc;
}
static int cu_call_event_destroy(uintptr_t ctx, uintptr_t e) { IN_CTX(ctx, cu.event_destroy((void *)e)); }
static int cu_call_event_record(uintptr_t ctx, uintptr_t e, uintptr_t s) {
	IN_CTX(ctx, cu.event_record((void *)e, (void *)s));
}
static int cu_call_event_synchronize(uintptr_t ctx, uintptr_t e) { IN_CTX(ctx, cu.event_synchronize((void *)e)); }

// Copies: a batch of 2-D copies between unified addresses, enqueued on s.
static int copy_batch(const mv_copy2d *ops, size_t n, uintptr_t s) {
	for (size_t i = 0; i < n; i++) {
		const mv_copy2d *o = &ops[i];
		int rc;
		if (o->height == 1 || (o->dst_pitch == o->width && o->src_pitch == o->width)) {
			rc = cu.memcpy_async(o->dst, o->src, o->width * o->height, (void *)s);
		} else {
			cu_memcpy2d c = {0};
			c.srcMemoryType = 4; // CU_MEMORYTYPE_UNIFIED
			c.srcDevice = o->src;
			c.srcPitch = o->src_pitch;
			c.dstMemoryType = 4;
			c.dstDevice = o->dst;
			c.dstPitch = o->dst_pitch;
			c.WidthInBytes = o->width;
			c.Height = o->height;
			rc = cu.memcpy2d_async(&c, (void *)s);
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}
static int cu_call_copy(uintptr_t ctx, const mv_copy2d *ops, size_t n, uintptr_t s, int sync) {
	void *prev;
	int rc = ctx_enter(ctx, &prev);
	if (rc != 0)
		return rc;
	rc = copy_batch(ops, n, s);
	if (rc == 0 && sync)
		rc = cu.stream_synchronize((void *)s);
	ctx_leave(ctx, prev);
	return rc;
}

// Fills: n items of 1, 2 or 4 bytes, or rows of 4-byte words with a pitch (for
// wider items: one call per 4-byte word of the item).
static int cu_call_memset(uintptr_t ctx, int width, cu_dptr d, unsigned int v, size_t n, uintptr_t s) {
	switch (width) {
	case 1: IN_CTX(ctx, cu.memset_d8_async(d, (unsigned char)v, n, (void *)s));
	case 2: IN_CTX(ctx, cu.memset_d16_async(d, (unsigned short)v, n, (void *)s));
	default: IN_CTX(ctx, cu.memset_d32_async(d, v, n, (void *)s));
	}
}
static int cu_call_memset_2d32(uintptr_t ctx, cu_dptr d, size_t pitch, unsigned int v, size_t height, uintptr_t s) {
	IN_CTX(ctx, cu.memset_d2d32_async(d, pitch, v, 1, height, (void *)s));
}
*/
import "C"

import (
	"fmt"
	"sync"
)

// driver state, loaded once.
var (
	loadOnce sync.Once
	loadErr  error
)

// load opens the driver library and initialises it, once per process.
func load() error {
	loadOnce.Do(func() {
		switch C.cu_load() {
		case -1:
			loadErr = fmt.Errorf("cuda: libcuda.so.1 not found (no NVIDIA driver): %w", ErrNoDevice)
			return
		case -2:
			loadErr = fmt.Errorf("cuda: libcuda.so.1 lacks %s, which memview needs (driver too old?): %w",
				C.GoString(C.cu_missing_name()), ErrNoDevice)
			return
		}
		if rc := C.cu_call_init(); rc != 0 {
			loadErr = fmt.Errorf("cuda: cuInit failed: %w", resultError(int(rc)))
		}
	})
	return loadErr
}

// DeviceCount returns the number of CUDA devices, or an error wrapping
// ErrNoDevice when there is no driver or no device.
func DeviceCount() (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	var n C.int
	if rc := C.cu_call_device_get_count(&n); rc != 0 {
		return 0, fmt.Errorf("cuda: cuDeviceGetCount: %w", resultError(int(rc)))
	}
	if n == 0 {
		return 0, fmt.Errorf("cuda: the driver sees no device: %w", ErrNoDevice)
	}
	return int(n), nil
}

// Available reports whether a CUDA driver and at least one device are present.
func Available() bool {
	n, err := DeviceCount()
	return err == nil && n > 0
}

// PointerDevice returns the ordinal of the device a CUDA address belongs to.
func PointerDevice(addr uintptr) (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	var ordinal C.int
	if rc := C.cu_call_pointer_device(C.uintptr_t(addr), &ordinal); rc != 0 {
		return 0, fmt.Errorf("cuda: cuPointerGetAttribute(%#x, DEVICE_ORDINAL): %w", addr, resultError(int(rc)))
	}
	return int(ordinal), nil
}

// check turns a CUresult into an error naming the call, or nil.
func check(rc C.int, what string, args ...any) error {
	if rc == 0 {
		return nil
	}
	return fmt.Errorf("cuda: %s: %w", fmt.Sprintf(what, args...), resultError(int(rc)))
}

// The Go face of the C calls above, for the other files of this package (only
// this file imports "C"). ctx, streams and events are driver handles, never Go
// pointers.

func drvPrimaryCtx(ordinal int) (uintptr, error) {
	var ctx C.uintptr_t
	err := check(C.cu_call_primary_ctx(C.int(ordinal), &ctx), "cuDevicePrimaryCtxRetain(device %d)", ordinal)
	return uintptr(ctx), err
}

// Memory kinds for drvAlloc and drvFree.
const (
	memDevice  = 0
	memPinned  = 1
	memManaged = 2
)

func drvAlloc(ctx uintptr, kind, size int, zeroStream uintptr) (uintptr, error) {
	var p C.uintptr_t
	err := check(C.cu_call_alloc(C.uintptr_t(ctx), C.int(kind), C.size_t(size), C.uintptr_t(zeroStream), &p),
		"allocation of %d bytes (%s)", size, memKindName(kind))
	return uintptr(p), err
}

func drvFree(ctx uintptr, kind int, p uintptr) error {
	return check(C.cu_call_free(C.uintptr_t(ctx), C.int(kind), C.uintptr_t(p)), "free of %#x (%s)", p, memKindName(kind))
}

func memKindName(kind int) string {
	return [...]string{"device", "pinned host", "managed"}[kind]
}

func drvStreamCreate(ctx uintptr, flags uint) (uintptr, error) {
	var s C.uintptr_t
	err := check(C.cu_call_stream_create(C.uintptr_t(ctx), C.uint(flags), &s), "cuStreamCreate")
	return uintptr(s), err
}

func drvStreamDestroy(ctx, s uintptr) error {
	return check(C.cu_call_stream_destroy(C.uintptr_t(ctx), C.uintptr_t(s)), "cuStreamDestroy(%#x)", s)
}

func drvStreamSynchronize(ctx, s uintptr) error {
	return check(C.cu_call_stream_synchronize(C.uintptr_t(ctx), C.uintptr_t(s)), "cuStreamSynchronize(%#x)", s)
}

// drvStreamQuery reports whether all work on s is done.
func drvStreamQuery(ctx, s uintptr) (bool, error) {
	switch rc := C.cu_call_stream_query(C.uintptr_t(ctx), C.uintptr_t(s)); rc {
	case 0:
		return true, nil
	case 600: // CUDA_ERROR_NOT_READY
		return false, nil
	default:
		return false, check(rc, "cuStreamQuery(%#x)", s)
	}
}

func drvStreamWaitEvent(ctx, s, e uintptr) error {
	return check(C.cu_call_stream_wait_event(C.uintptr_t(ctx), C.uintptr_t(s), C.uintptr_t(e)),
		"cuStreamWaitEvent(stream %#x, event %#x)", s, e)
}

func drvEventCreate(ctx uintptr) (uintptr, error) {
	var e C.uintptr_t
	err := check(C.cu_call_event_create(C.uintptr_t(ctx), &e), "cuEventCreate")
	return uintptr(e), err
}

func drvEventDestroy(ctx, e uintptr) error {
	return check(C.cu_call_event_destroy(C.uintptr_t(ctx), C.uintptr_t(e)), "cuEventDestroy(%#x)", e)
}

func drvEventRecord(ctx, e, s uintptr) error {
	return check(C.cu_call_event_record(C.uintptr_t(ctx), C.uintptr_t(e), C.uintptr_t(s)),
		"cuEventRecord(event %#x, stream %#x)", e, s)
}

func drvEventSynchronize(ctx, e uintptr) error {
	return check(C.cu_call_event_synchronize(C.uintptr_t(ctx), C.uintptr_t(e)), "cuEventSynchronize(%#x)", e)
}

// drvCopy enqueues ops on s, and waits for them when sync is set.
func drvCopy(ctx uintptr, ops []copy2D, s uintptr, sync bool) error {
	if len(ops) == 0 {
		if sync {
			return drvStreamSynchronize(ctx, s)
		}
		return nil
	}
	cops := make([]C.mv_copy2d, len(ops))
	for i, o := range ops {
		cops[i] = C.mv_copy2d{dst: C.uint64_t(o.dst), src: C.uint64_t(o.src),
			dst_pitch: C.uint64_t(o.dstPitch), src_pitch: C.uint64_t(o.srcPitch),
			width: C.uint64_t(o.width), height: C.uint64_t(o.height)}
	}
	cs := 0
	if sync {
		cs = 1
	}
	return check(C.cu_call_copy(C.uintptr_t(ctx), &cops[0], C.size_t(len(cops)), C.uintptr_t(s), C.int(cs)),
		"copy of %d block(s) on stream %#x", len(ops), s)
}

// drvMemset fills n items of width 1, 2 or 4 bytes at d with v.
func drvMemset(ctx uintptr, width int, d uintptr, v uint32, n int, s uintptr) error {
	return check(C.cu_call_memset(C.uintptr_t(ctx), C.int(width), C.cu_dptr(d), C.uint(v), C.size_t(n), C.uintptr_t(s)),
		"memset of %d %d-byte items at %#x", n, width, d)
}

// drvMemset2D32 writes the 4-byte word v at d, d+pitch, ... (height words).
func drvMemset2D32(ctx uintptr, d uintptr, pitch int, v uint32, height int, s uintptr) error {
	return check(C.cu_call_memset_2d32(C.uintptr_t(ctx), C.cu_dptr(d), C.size_t(pitch), C.uint(v), C.size_t(height), C.uintptr_t(s)),
		"2-D memset of %d words at %#x, pitch %d", height, d, pitch)
}
