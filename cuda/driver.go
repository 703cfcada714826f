//go:build cgo

package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_abi.h"

// The driver's entry points, found with dlsym so that nothing of CUDA is
// needed to build or load memview. Each pointer has the type of cuda_abi.h's
// prototype, so every call below is checked against cuda.h's signature.
#define CU_ENTRY_POINTS(X)                              \
	X(cuInit) X(cuGetErrorName) X(cuGetErrorString)     \
	X(cuDeviceGetCount) X(cuDeviceGet)                  \
	X(cuPointerGetAttribute) X(cuDevicePrimaryCtxRetain) \
	X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxGetDevice) \
	X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemHostAlloc)  \
	X(cuMemFreeHost) X(cuMemAllocManaged)               \
	X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async) \
	X(cuMemcpyAsync) X(cuMemcpy2DAsync_v2)              \
	X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize) \
	X(cuStreamQuery) X(cuStreamWaitEvent)               \
	X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventSynchronize) \
	X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuLaunchKernel)

#define CU_FIELD(name) __typeof__(name) *name;
static struct { CU_ENTRY_POINTS(CU_FIELD) } cu;
#define CU_SYM(name) {#name, (void **)&cu.name},
static const struct { const char *name; void **slot; } cu_syms[] = { CU_ENTRY_POINTS(CU_SYM) };

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
			memset(&cu, 0, sizeof cu);
			dlclose(h);
			return -2;
		}
		*cu_syms[i].slot = f;
	}
	cu_lib = h;
	return 0;
}

static const char *cu_missing_name(void) { return cu_missing; }

// CUDA does not survive fork(): a child of a process whose driver was
// initialised must not enter the driver (its threads and device state are the
// parent's). Once cuInit has succeeded, a fork handler marks every child, and
// each call below then returns MV_CU_FORKED without entering the driver. A
// child whose parent never initialised CUDA may still load it and use it.
#define MV_CU_FORKED 0x6d760001
static volatile int cu_forked;
static void cu_on_fork_child(void) { cu_forked = 1; }
#define NOT_IN_FORKED_CHILD() \
	do {                      \
		if (cu_forked)        \
			return MV_CU_FORKED; \
	} while (0)

static int cu_call_init(void) {
	int rc = cu.cuInit(0);
	if (rc == CUDA_SUCCESS)
		pthread_atfork(NULL, NULL, cu_on_fork_child);
	return rc;
}
static int cu_call_device_get_count(int *n) {
	NOT_IN_FORKED_CHILD();
	return cu.cuDeviceGetCount(n);
}

// The driver's name and description of a CUresult; NULLs when it has none.
static void cu_error_text(int code, const char **name, const char **desc) {
	*name = *desc = NULL;
	if (cu_lib == NULL || cu_forked)
		return;
	if (cu.cuGetErrorName(code, name) != CUDA_SUCCESS)
		*name = NULL;
	if (cu.cuGetErrorString(code, desc) != CUDA_SUCCESS)
		*desc = NULL;
}

static int cu_call_pointer_device(uintptr_t ptr, int *ordinal) {
	NOT_IN_FORKED_CHILD();
	return cu.cuPointerGetAttribute(ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
}

// The device of the context current on this thread; -1 when there is none.
static int cu_call_current_device(int *ordinal) {
	CUcontext c = NULL;
	*ordinal = -1;
	NOT_IN_FORKED_CHILD();
	int rc = cu.cuCtxGetCurrent(&c);
	if (rc != CUDA_SUCCESS || c == NULL)
		return rc;
	CUdevice d;
	rc = cu.cuCtxGetDevice(&d);
	if (rc == CUDA_SUCCESS)
		*ordinal = d;
	return rc;
}

static int cu_call_primary_ctx(int ordinal, uintptr_t *ctx) {
	NOT_IN_FORKED_CHILD();
	CUdevice dev;
	int rc = cu.cuDeviceGet(&dev, ordinal);
	if (rc != CUDA_SUCCESS)
		return rc;
	CUcontext c;
	rc = cu.cuDevicePrimaryCtxRetain(&c, dev);
	*ctx = (uintptr_t)c;
	return rc;
}

// Every call that needs a context makes ctx current on the calling thread and
// puts back whatever was current before, all inside one C call, so it is
// correct however goroutines move between threads, and it leaves the current
// device of CuPy, Numba or PyTorch on this thread as it was.
static int ctx_enter(uintptr_t ctx, CUcontext *prev) {
	int rc = cu.cuCtxGetCurrent(prev);
	if (rc != CUDA_SUCCESS || *prev == (CUcontext)ctx)
		return rc;
	return cu.cuCtxSetCurrent((CUcontext)ctx);
}
static void ctx_leave(uintptr_t ctx, CUcontext prev) {
	if (prev != (CUcontext)ctx)
		cu.cuCtxSetCurrent(prev);
}
#define IN_CTX(ctx, call)                          \
	do {                                           \
		CUcontext prev_;                           \
		NOT_IN_FORKED_CHILD();                     \
		int rc_ = ctx_enter((ctx), &prev_);        \
		if (rc_ != CUDA_SUCCESS)                   \
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
	CUdeviceptr d = 0;
	void *h = NULL;
	int rc;
	switch (kind) {
	case 0: rc = cu.cuMemAlloc_v2(&d, n); break;
	case 1: rc = cu.cuMemHostAlloc(&h, n, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP); break;
	default: rc = cu.cuMemAllocManaged(&d, n, CU_MEM_ATTACH_GLOBAL); break;
	}
	if (rc != CUDA_SUCCESS)
		return rc;
	if (kind == 1) {
		memset(h, 0, n);
		*out = (uintptr_t)h;
		return CUDA_SUCCESS;
	}
	rc = cu.cuMemsetD8Async(d, 0, n, (CUstream)zs);
	if (rc == CUDA_SUCCESS)
		rc = cu.cuStreamSynchronize((CUstream)zs);
	if (rc != CUDA_SUCCESS) {
		cu.cuMemFree_v2(d);
		return rc;
	}
	*out = (uintptr_t)d;
	return CUDA_SUCCESS;
}
static int cu_call_alloc(uintptr_t ctx, int kind, size_t n, uintptr_t zs, uintptr_t *out) {
	IN_CTX(ctx, alloc_zeroed(kind, n, zs, out));
}
static int cu_call_free(uintptr_t ctx, int kind, uintptr_t p) {
	IN_CTX(ctx, kind == 1 ? cu.cuMemFreeHost((void *)p) : cu.cuMemFree_v2((CUdeviceptr)p));
}

// Streams and events.
static int stream_create(unsigned int flags, uintptr_t *s) {
	CUstream p = NULL;
	int rc = cu.cuStreamCreate(&p, flags);
	*s = (uintptr_t)p;
	return rc;
}
static int cu_call_stream_create(uintptr_t ctx, unsigned int flags, uintptr_t *s) { IN_CTX(ctx, stream_create(flags, s)); }
static int cu_call_stream_destroy(uintptr_t ctx, uintptr_t s) { IN_CTX(ctx, cu.cuStreamDestroy_v2((CUstream)s)); }
static int cu_call_stream_synchronize(uintptr_t ctx, uintptr_t s) { IN_CTX(ctx, cu.cuStreamSynchronize((CUstream)s)); }
static int cu_call_stream_query(uintptr_t ctx, uintptr_t s) { IN_CTX(ctx, cu.cuStreamQuery((CUstream)s)); }
static int cu_call_stream_wait_event(uintptr_t ctx, uintptr_t s, uintptr_t e) {
	IN_CTX(ctx, cu.cuStreamWaitEvent((CUstream)s, (CUevent)e, 0));
}
// An event that only orders work: no timing.
static int event_create(uintptr_t *e) {
	CUevent p = NULL;
	int rc = cu.cuEventCreate(&p, CU_EVENT_DISABLE_TIMING);
	*e = (uintptr_t)p;
	return rc;
}
static int cu_call_event_create(uintptr_t ctx, uintptr_t *e) { IN_CTX(ctx, event_create(e)); }
static int cu_call_event_destroy(uintptr_t ctx, uintptr_t e) { IN_CTX(ctx, cu.cuEventDestroy_v2((CUevent)e)); }
static int cu_call_event_record(uintptr_t ctx, uintptr_t e, uintptr_t s) {
	IN_CTX(ctx, cu.cuEventRecord((CUevent)e, (CUstream)s));
}
static int cu_call_event_synchronize(uintptr_t ctx, uintptr_t e) { IN_CTX(ctx, cu.cuEventSynchronize((CUevent)e)); }

// mv_copy2d is one 2-D copy as Go plans it (see plan.go); addresses are
// unified virtual addresses.
typedef struct {
	uint64_t dst, src, dst_pitch, src_pitch, width, height;
} mv_copy2d;

// Copies: a batch of 2-D copies between unified addresses, enqueued on s.
static int copy_batch(const mv_copy2d *ops, size_t n, uintptr_t s) {
	for (size_t i = 0; i < n; i++) {
		const mv_copy2d *o = &ops[i];
		int rc;
		if (o->height == 1 || (o->dst_pitch == o->width && o->src_pitch == o->width)) {
			rc = cu.cuMemcpyAsync(o->dst, o->src, o->width * o->height, (CUstream)s);
		} else {
			CUDA_MEMCPY2D c = {0};
			c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
			c.srcDevice = o->src;
			c.srcPitch = o->src_pitch;
			c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
			c.dstDevice = o->dst;
			c.dstPitch = o->dst_pitch;
			c.WidthInBytes = o->width;
			c.Height = o->height;
			rc = cu.cuMemcpy2DAsync_v2(&c, (CUstream)s);
		}
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return CUDA_SUCCESS;
}
static int cu_call_copy(uintptr_t ctx, const mv_copy2d *ops, size_t n, uintptr_t s) { IN_CTX(ctx, copy_batch(ops, n, s)); }

// Fills: n items of 1, 2 or 4 bytes (the address aligned to the item).
static int memset_n(int width, CUdeviceptr d, unsigned int v, size_t n, uintptr_t s) {
	switch (width) {
	case 1: return cu.cuMemsetD8Async(d, (unsigned char)v, n, (CUstream)s);
	case 2: return cu.cuMemsetD16Async(d, (unsigned short)v, n, (CUstream)s);
	default: return cu.cuMemsetD32Async(d, v, n, (CUstream)s);
	}
}
static int cu_call_memset(uintptr_t ctx, int width, uintptr_t d, unsigned int v, size_t n, uintptr_t s) {
	IN_CTX(ctx, memset_n(width, (CUdeviceptr)d, v, n, s));
}

// Kernels: load memview's PTX module in ctx and find its entries. A module
// that does not load is loaded again with the JIT's error log, so the error
// says why.
static int module_load(const char *image, const char *const *names, int n, uintptr_t *mod, uintptr_t *fns,
                       char *log, size_t logsize) {
	CUmodule m = NULL;
	int rc = cu.cuModuleLoadData(&m, image);
	if (rc != CUDA_SUCCESS) {
		CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *vals[2] = {log, (void *)(uintptr_t)logsize};
		log[0] = 0;
		if (cu.cuModuleLoadDataEx(&m, image, 2, opts, vals) == CUDA_SUCCESS)
			rc = CUDA_SUCCESS; // loaded the second time after all
		else
			return rc;
	}
	for (int i = 0; i < n; i++) {
		CUfunction f = NULL;
		rc = cu.cuModuleGetFunction(&f, m, names[i]);
		if (rc != CUDA_SUCCESS)
			return rc;
		fns[i] = (uintptr_t)f;
	}
	*mod = (uintptr_t)m;
	return CUDA_SUCCESS;
}
static int cu_call_module_load(uintptr_t ctx, const char *image, const char *const *names, int n,
                               uintptr_t *mod, uintptr_t *fns, char *log, size_t logsize) {
	IN_CTX(ctx, module_load(image, names, n, mod, fns, log, logsize));
}

// One launch: the argument block is the kernel's only parameter, copied by the
// driver when the launch is enqueued.
static int launch(uintptr_t f, const unsigned int *grid, const unsigned int *block, uintptr_t s, void *args) {
	void *params[1] = {args};
	return cu.cuLaunchKernel((CUfunction)f, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0,
	                         (CUstream)s, params, NULL);
}
static int cu_call_launch(uintptr_t ctx, uintptr_t f, const unsigned int *grid, const unsigned int *block,
                          uintptr_t s, void *args) {
	IN_CTX(ctx, launch(f, grid, block, s, args));
}

// The layout of mv_kernel_args, for the test that holds kernel.go to it.
static void kernel_args_layout(size_t *out) {
	out[0] = offsetof(mv_kernel_args, dst);
	out[1] = offsetof(mv_kernel_args, src);
	out[2] = offsetof(mv_kernel_args, n0);
	out[3] = offsetof(mv_kernel_args, ds0);
	out[4] = offsetof(mv_kernel_args, ss0);
	out[5] = offsetof(mv_kernel_args, rows);
	out[6] = offsetof(mv_kernel_args, nouter);
	out[7] = offsetof(mv_kernel_args, itemsize);
	out[8] = offsetof(mv_kernel_args, value);
	out[9] = offsetof(mv_kernel_args, outer);
	out[10] = sizeof(mv_kernel_axis);
	out[11] = MV_KERNEL_MAXOUTER;
	out[12] = MV_KERNEL_MAXVALUE;
	out[13] = sizeof(mv_kernel_args);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// drvLoad opens the driver library and initialises it.
func drvLoad() error {
	switch C.cu_load() {
	case -1:
		return fmt.Errorf("cuda: libcuda.so.1 not found (no NVIDIA driver): %w", ErrNoDevice)
	case -2:
		return fmt.Errorf("cuda: libcuda.so.1 lacks %s, which memview needs (driver too old?): %w",
			C.GoString(C.cu_missing_name()), ErrNoDevice)
	}
	if rc := C.cu_call_init(); rc != 0 {
		return fmt.Errorf("cuda: cuInit failed: %w", resultError(int(rc)))
	}
	return nil
}

func init() { errorText = drvErrorText }

// drvErrorText asks the loaded driver for a CUresult's name and description.
func drvErrorText(code int) (name, desc string) {
	var n, d *C.char
	C.cu_error_text(C.int(code), &n, &d)
	if n != nil {
		name = C.GoString(n)
	}
	if d != nil {
		desc = C.GoString(d)
	}
	return name, desc
}

func drvDeviceCount() (int, error) {
	var n C.int
	err := check(C.cu_call_device_get_count(&n), "cuDeviceGetCount")
	return int(n), err
}

func drvPointerDevice(addr uintptr) (int, error) {
	var ordinal C.int
	err := check(C.cu_call_pointer_device(C.uintptr_t(addr), &ordinal), "cuPointerGetAttribute(%#x, DEVICE_ORDINAL)", addr)
	return int(ordinal), err
}

func drvCurrentDevice() (int, error) {
	var ordinal C.int
	err := check(C.cu_call_current_device(&ordinal), "cuCtxGetDevice")
	return int(ordinal), err
}

func drvPrimaryCtx(ordinal int) (uintptr, error) {
	var ctx C.uintptr_t
	err := check(C.cu_call_primary_ctx(C.int(ordinal), &ctx), "cuDevicePrimaryCtxRetain(device %d)", ordinal)
	return uintptr(ctx), err
}

func drvAlloc(ctx uintptr, kind, size int, zeroStream uintptr) (uintptr, error) {
	var p C.uintptr_t
	err := check(C.cu_call_alloc(C.uintptr_t(ctx), C.int(kind), C.size_t(size), C.uintptr_t(zeroStream), &p),
		"allocation of %d bytes (%s)", size, memKindName(kind))
	return uintptr(p), err
}

func drvFree(ctx uintptr, kind int, p uintptr) error {
	return check(C.cu_call_free(C.uintptr_t(ctx), C.int(kind), C.uintptr_t(p)), "free of %#x (%s)", p, memKindName(kind))
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
	case C.CUDA_ERROR_NOT_READY:
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

// drvCopy enqueues ops on s.
func drvCopy(ctx uintptr, ops []copy2D, s uintptr) error {
	if len(ops) == 0 {
		return nil
	}
	cops := make([]C.mv_copy2d, len(ops))
	for i, o := range ops {
		cops[i] = C.mv_copy2d{dst: C.uint64_t(o.dst), src: C.uint64_t(o.src),
			dst_pitch: C.uint64_t(o.dstPitch), src_pitch: C.uint64_t(o.srcPitch),
			width: C.uint64_t(o.width), height: C.uint64_t(o.height)}
	}
	return check(C.cu_call_copy(C.uintptr_t(ctx), &cops[0], C.size_t(len(cops)), C.uintptr_t(s)),
		"copy of %d block(s) on stream %#x", len(ops), s)
}

// drvMemset fills n items of width 1, 2 or 4 bytes at d (aligned to width) with v.
func drvMemset(ctx uintptr, width int, d uintptr, v uint32, n int, s uintptr) error {
	return check(C.cu_call_memset(C.uintptr_t(ctx), C.int(width), C.uintptr_t(d), C.uint(v), C.size_t(n), C.uintptr_t(s)),
		"memset of %d %d-byte items at %#x", n, width, d)
}

// drvModuleLoad loads memview's kernels in ctx and returns the module and the
// function of each kernel.
func drvModuleLoad(ctx uintptr) (mod uintptr, fns [numKernels]uintptr, err error) {
	image := C.CString(kernelModule())
	defer C.free(unsafe.Pointer(image))
	names := (*[numKernels]*C.char)(C.malloc(C.size_t(numKernels) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	defer C.free(unsafe.Pointer(names))
	for k := range numKernels {
		names[k] = C.CString(k.String())
		defer C.free(unsafe.Pointer(names[k]))
	}
	const logSize = 4096
	log := (*C.char)(C.calloc(logSize, 1))
	defer C.free(unsafe.Pointer(log))
	cfns := (*[numKernels]C.uintptr_t)(C.malloc(C.size_t(numKernels) * C.sizeof_uintptr_t))
	defer C.free(unsafe.Pointer(cfns))
	var m C.uintptr_t
	rc := C.cu_call_module_load(C.uintptr_t(ctx), image, &names[0], C.int(numKernels), &m, &cfns[0], log, logSize)
	if rc != 0 {
		if msg := C.GoString(log); msg != "" {
			return 0, fns, check(rc, "loading memview's PTX kernels: %s", msg)
		}
		return 0, fns, check(rc, "loading memview's PTX kernels")
	}
	for k := range numKernels {
		fns[k] = uintptr(cfns[k])
	}
	return uintptr(m), fns, nil
}

// drvLaunch enqueues l on s: fn is the function of l.k in ctx. The driver
// copies the argument block while it enqueues the launch.
func drvLaunch(ctx, fn uintptr, l *launch, s uintptr) error {
	var grid, block [3]C.uint
	for i := range 3 {
		grid[i], block[i] = C.uint(l.grid[i]), C.uint(l.block[i])
	}
	return check(C.cu_call_launch(C.uintptr_t(ctx), C.uintptr_t(fn), &grid[0], &block[0], C.uintptr_t(s),
		unsafe.Pointer(&l.args[0])), "launch of %s (grid %v, block %v) on stream %#x", l.k, l.grid, l.block, s)
}

// drvNewWord returns 8 zeroed bytes of C memory (never moved, never collected),
// for a value that C code reads; drvFreeWord gives it back.
func drvNewWord() *int64 { return (*int64)(C.calloc(1, 8)) }

func drvFreeWord(w *int64) { C.free(unsafe.Pointer(w)) }

// kernelArgsLayoutC returns cuda_abi.h's offsets of mv_kernel_args (see kernel_args_layout).
func kernelArgsLayoutC() [14]int {
	var out [14]C.size_t
	C.kernel_args_layout(&out[0])
	var r [14]int
	for i, v := range out {
		r[i] = int(v)
	}
	return r
}
