/*
 * fake_cuda.c - a stand-in libcuda.so.1 for machines without a GPU. It is NOT a
 * CUDA implementation and proves nothing about real GPUs (tests/test_gpu.py does,
 * on a GPU machine). It lets CI run memview's own driver-call logic - contexts,
 * allocators, stream and event ordering, copies, memsets, kernel launches - with
 * "device memory" that is ordinary host memory, and it checks how memview calls
 * the driver. Written for memview's tests from the CUDA driver API's documented
 * signatures and semantics; its prototypes come from cuda/cuda_abi.h, so the
 * compiler holds them to the ones memview calls.
 *
 * What it models:
 *   - two devices, each with a primary context; a context must be current for
 *     every call that needs one, and memview must put back the context that was
 *     current before (fake_context_leaked);
 *   - asynchrony: work enqueued on a stream does NOT run when it is enqueued. It
 *     runs when something waits for it - cuStreamSynchronize, cuEventSynchronize
 *     of an event recorded after it, or work on another stream that waits for
 *     such an event - with the legacy default stream's implicit ordering against
 *     blocking streams. So reading memory before waiting for the work that
 *     writes it sees the old bytes, as on a GPU (fake_sync_stream is how a test
 *     plays a consumer that honours a stream named by __cuda_array_interface__);
 *   - memview's kernels (cuModuleLoadData of its PTX text, cuModuleGetFunction,
 *     cuLaunchKernel): the launch geometry and the argument block are checked,
 *     and the kernel's meaning is carried out by a C loop over the same block
 *     (the PTX itself is run by an interpreter in cuda/'s Go tests);
 *   - checks, each counted as a violation with a description: device writes
 *     inside live allocations of the launching device; aligned kernel accesses;
 *     2-D copies with pitches >= width, and none between two device
 *     allocations (the driver documents that such copies may fail for pitches
 *     not made by cuMemAllocPitch); no use of a destroyed stream or event; no
 *     memory freed while queued work still uses it.
 *
 * Environment: MEMVIEW_FAKE_INIT_RESULT makes cuInit fail with that CUresult;
 * MEMVIEW_FAKE_PTX_FAIL makes cuModuleLoadData fail and cuModuleLoadDataEx
 * report a JIT error log.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_abi.h"

#define NDEV 2
static int ctx_tokens[NDEV]; /* the primary contexts: their addresses */
static __thread CUcontext current;
static int violations;
static char last_violation[512];
static long calls, transfers, launches, copies2d;
static long waits; /* cuStreamWaitEvent calls that succeeded */

static void violate(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violate(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    violations++;
    vsnprintf(last_violation, sizeof last_violation, fmt, ap);
    va_end(ap);
}

/* The device of the current context, or -1 (and a violation) when none is. */
static int cur_dev(void)
{
    calls++;
    for (int d = 0; d < NDEV; d++)
        if (current == (CUcontext)&ctx_tokens[d])
            return d;
    violate("a driver call without a primary context current");
    return -1;
}
#define NEED_CTX(dev)                                                                              \
    int dev = cur_dev();                                                                           \
    if (dev < 0)                                                                                   \
        return CUDA_ERROR_INVALID_CONTEXT

/* ---- allocations (device, pinned, managed: all host memory here) ---- */
enum { K_DEVICE, K_PINNED, K_MANAGED, K_FOREIGN };
#define MAXALLOC 8192
static struct {
    char *p;
    size_t n;
    int kind, dev;
} allocs[MAXALLOC];

static int find_alloc(const char *p, size_t n)
{
    for (int i = 0; i < MAXALLOC; i++)
        if (allocs[i].p != NULL && p >= allocs[i].p && p + n <= allocs[i].p + allocs[i].n)
            return i;
    return -1;
}
/* 1 if [p, p+n) is inside a live allocation; 0 if outside all of them (host
 * memory); -1 if it straddles one. */
static int inside(const char *p, size_t n)
{
    for (int i = 0; i < MAXALLOC; i++) {
        char *a = allocs[i].p;
        if (a == NULL)
            continue;
        if (p >= a && p + n <= a + allocs[i].n)
            return 1;
        if (p < a + allocs[i].n && p + n > a)
            return -1;
    }
    return 0;
}
static int is_device_side(const char *p, size_t n)
{
    int i = find_alloc(p, n ? n : 1);
    return i >= 0 && allocs[i].kind != K_PINNED;
}
static void *track(size_t n, int kind, int dev)
{
    void *m = aligned_alloc(256, (n + 255) / 256 * 256);
    if (m == NULL)
        return NULL;
    memset(m, 0xAB, n); /* garbage: memview must clear it */
    for (int i = 0; i < MAXALLOC; i++)
        if (allocs[i].p == NULL) {
            allocs[i].p = m;
            allocs[i].n = n;
            allocs[i].kind = kind;
            allocs[i].dev = dev;
            return m;
        }
    free(m);
    return NULL;
}

/* ---- streams, events and queued work ---- */
enum { OP_MEMSET, OP_COPY, OP_COPY2D, OP_LAUNCH, OP_RECORD, OP_WAIT, OP_HOSTFN };
typedef struct {
    int sid;
    long seq;
} dep;
typedef struct {
    int kind;
    int ndeps;
    dep *deps;
    int dev; /* the device of the context that enqueued it */
    /* payload */
    CUdeviceptr dst, src;
    size_t n;
    unsigned int value;
    int width;
    CUDA_MEMCPY2D c2;
    int kernel;
    unsigned int grid[3], block[3];
    mv_kernel_args *args;
    int event;
    void (*fn)(void *); /* OP_HOSTFN */
    void *data;
} op;

#define MAXS 1024
#define S_LEGACY(d) (d)          /* stream ids: the legacy default stream of each device, */
#define S_PERTHREAD(d) (NDEV + (d)) /* the per-thread default streams, then created ones */
#define S_FIRST (2 * NDEV)
static struct {
    int used, live, blocking, dev;
    op *q;
    long len, cap, head; /* queued ops [head, len) have not run */
} streams[MAXS];
static struct {
    int used, live, recorded, sid;
    long seq;
} events[MAXS];

static void run_until(int sid, long upto);

/* The stream id a handle names in the current context's device; -1 if dead. */
static int sid_of(CUstream h, int dev)
{
    uintptr_t v = (uintptr_t)h;
    if (v == 0 || v == 1)
        return S_LEGACY(dev);
    if (v == 2)
        return S_PERTHREAD(dev);
    if (v < 0x1000 || v >= 0x1000 + MAXS || !streams[v - 0x1000].live) {
        violate("use of a dead or unknown stream %#lx", (unsigned long)v);
        return -1;
    }
    int sid = (int)(v - 0x1000);
    if (streams[sid].dev != dev) {
        violate("stream %#lx of device %d used with device %d's context", (unsigned long)v, streams[sid].dev, dev);
        return -1;
    }
    return sid;
}
static int eid_of(CUevent h)
{
    uintptr_t v = (uintptr_t)h;
    if (v < 0x1000 || v >= 0x1000 + MAXS || !events[v - 0x1000].live) {
        violate("use of a dead or unknown event %#lx", (unsigned long)v);
        return -1;
    }
    return (int)(v - 0x1000);
}

static void add_dep(op *o, int sid, long seq)
{
    if (seq < 0)
        return;
    o->deps = realloc(o->deps, (o->ndeps + 1) * sizeof(dep));
    o->deps[o->ndeps++] = (dep){sid, seq};
}

/* Enqueue o on stream sid, with the legacy stream's implicit ordering: work on
 * the legacy stream waits for all blocking streams of its device, and work on
 * a blocking stream waits for the legacy stream. */
static void enqueue(int sid, op o)
{
    int d = streams[sid].dev;
    if (sid == S_LEGACY(d)) {
        for (int i = 0; i < MAXS; i++)
            if (i != sid && streams[i].used && streams[i].blocking && streams[i].dev == d)
                add_dep(&o, i, streams[i].len - 1);
    } else if (streams[sid].blocking) {
        add_dep(&o, S_LEGACY(d), streams[S_LEGACY(d)].len - 1);
    }
    if (streams[sid].len == streams[sid].cap) {
        streams[sid].cap = streams[sid].cap ? 2 * streams[sid].cap : 64;
        streams[sid].q = realloc(streams[sid].q, streams[sid].cap * sizeof(op));
    }
    streams[sid].q[streams[sid].len++] = o;
}

/* ---- carrying out queued work ---- */
static int check_range(const char *p, size_t n, int device_only, int dev, const char *what)
{
    if (n == 0)
        return 0;
    int in = inside(p, n);
    if (in < 0) {
        violate("%s straddles an allocation at %p (+%zu)", what, (void *)p, n);
        return 1;
    }
    if (device_only) {
        int i = find_alloc(p, n);
        if (i < 0 || allocs[i].kind == K_PINNED) {
            violate("%s at %p (+%zu) outside every device allocation", what, (void *)p, n);
            return 1;
        }
        if (allocs[i].dev != dev) {
            violate("%s at %p on device %d by device %d (no peer access)", what, (void *)p, allocs[i].dev, dev);
            return 1;
        }
    }
    return 0;
}

static void run_kernel(op *o);

static void *run_hostfn(void *p)
{
    op *o = p;
    o->fn(o->data);
    return NULL;
}

static void execute(op *o)
{
    switch (o->kind) {
    case OP_MEMSET:
        if (check_range((char *)(uintptr_t)o->dst, o->n * o->width, 1, o->dev, "a memset"))
            return;
        for (size_t i = 0; i < o->n; i++) {
            char *p = (char *)(uintptr_t)o->dst + i * o->width;
            memcpy(p, &o->value, o->width); /* little-endian: the low bytes */
        }
        return;
    case OP_COPY:
        if (check_range((char *)(uintptr_t)o->dst, o->n, 0, o->dev, "a copy's destination") ||
            check_range((char *)(uintptr_t)o->src, o->n, 0, o->dev, "a copy's source"))
            return;
        memmove((void *)(uintptr_t)o->dst, (void *)(uintptr_t)o->src, o->n);
        return;
    case OP_COPY2D:
        for (size_t r = 0; r < o->c2.Height; r++) {
            char *d = (char *)(uintptr_t)o->c2.dstDevice + r * o->c2.dstPitch;
            const char *s = (const char *)(uintptr_t)o->c2.srcDevice + r * o->c2.srcPitch;
            if (check_range(d, o->c2.WidthInBytes, 0, o->dev, "a 2-D copy's destination") ||
                check_range(s, o->c2.WidthInBytes, 0, o->dev, "a 2-D copy's source"))
                return;
            memmove(d, s, o->c2.WidthInBytes);
        }
        return;
    case OP_LAUNCH:
        run_kernel(o);
        return;
    case OP_RECORD:
    case OP_WAIT:
        return; /* ordering only: the dependencies did the work */
    case OP_HOSTFN: {
        /* as the driver does: on a thread of its own, the stream waiting for it */
        pthread_t t;
        if (pthread_create(&t, NULL, run_hostfn, o) != 0) {
            violate("could not start a host function's thread");
            return;
        }
        pthread_join(t, NULL);
        return;
    }
    }
}

static int running; /* depth of run_until, to catch a cycle (a bug in the fake) */
static void run_until(int sid, long upto)
{
    if (++running > 100000) {
        violate("the fake's queues form a cycle");
        running--;
        return;
    }
    while (streams[sid].head < upto && streams[sid].head < streams[sid].len) {
        op *o = &streams[sid].q[streams[sid].head];
        for (int i = 0; i < o->ndeps; i++)
            run_until(o->deps[i].sid, o->deps[i].seq + 1);
        o = &streams[sid].q[streams[sid].head]; /* the queue may have moved */
        streams[sid].head++;
        execute(o);
        free(o->deps);
        free(o->args);
        o->deps = NULL;
        o->args = NULL;
    }
    running--;
}
static void drain(void)
{
    for (int i = 0; i < MAXS; i++)
        if (streams[i].used)
            run_until(i, streams[i].len);
}

/* The bytes [lo, hi) a kernel's walk reaches from base, with strides of
 * destination (src 0) or source (src 1), for elements of width bytes. */
static void kernel_span(const mv_kernel_args *a, int src, int width, uint64_t *lo, uint64_t *hi)
{
    int64_t l = 0, h = 0;
    if (a->n0 > 1) {
        int64_t e = (int64_t)(a->n0 - 1) * (src ? a->ss0 : a->ds0);
        l += e < 0 ? e : 0;
        h += e > 0 ? e : 0;
    }
    for (uint32_t j = 0; j < a->nouter; j++) {
        int64_t e = (int64_t)(a->outer[j].n - 1) * (src ? a->outer[j].ss : a->outer[j].ds);
        l += e < 0 ? e : 0;
        h += e > 0 ? e : 0;
    }
    uint64_t base = src ? a->src : a->dst;
    *lo = base + l;
    *hi = base + h + width;
}

/* Does queued (not yet run) work touch [p, p+n)? */
static int queued_uses(const char *p, size_t n)
{
    const char *e = p + n;
#define HITS(a, len) ((const char *)(uintptr_t)(a) < e && (const char *)(uintptr_t)(a) + (len) > p)
    for (int i = 0; i < MAXS; i++) {
        if (!streams[i].used)
            continue;
        for (long k = streams[i].head; k < streams[i].len; k++) {
            op *o = &streams[i].q[k];
            switch (o->kind) {
            case OP_MEMSET:
                if (HITS(o->dst, o->n * o->width))
                    return 1;
                break;
            case OP_COPY:
                if (HITS(o->dst, o->n) || HITS(o->src, o->n))
                    return 1;
                break;
            case OP_COPY2D:
                if (HITS(o->c2.dstDevice, o->c2.dstPitch * o->c2.Height) ||
                    HITS(o->c2.srcDevice, o->c2.srcPitch * o->c2.Height))
                    return 1;
                break;
            case OP_LAUNCH: {
                int k = o->kernel, width = k == 10 ? (int)o->args->itemsize : 1 << (k % 5);
                uint64_t lo, hi;
                kernel_span(o->args, 0, width, &lo, &hi);
                if (HITS(lo, hi - lo))
                    return 1;
                if (k < 5) {
                    kernel_span(o->args, 1, width, &lo, &hi);
                    if (HITS(lo, hi - lo))
                        return 1;
                }
                break;
            }
            }
        }
    }
    return 0;
#undef HITS
}

/* ---- the driver API ---- */
static int init_result(void)
{
    const char *v = getenv("MEMVIEW_FAKE_INIT_RESULT");
    return v ? atoi(v) : CUDA_SUCCESS;
}
CUresult cuInit(unsigned int f)
{
    for (int d = 0; d < NDEV; d++) {
        streams[S_LEGACY(d)] = (__typeof__(streams[0])){.used = 1, .live = 1, .blocking = 0, .dev = d};
        streams[S_PERTHREAD(d)] = (__typeof__(streams[0])){.used = 1, .live = 1, .blocking = 1, .dev = d};
    }
    return init_result();
}

static const struct {
    int code;
    const char *name, *desc;
} error_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "forward compatibility was attempted on non supported HW"},
};
static CUresult error_text(CUresult e, const char **s, int desc)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == e) {
            *s = desc ? error_table[i].desc : error_table[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGetErrorName(CUresult e, const char **s) { return error_text(e, s, 0); }
CUresult cuGetErrorString(CUresult e, const char **s) { return error_text(e, s, 1); }

CUresult cuDeviceGetCount(int *n)
{
    if (init_result())
        return CUDA_ERROR_NOT_INITIALIZED;
    *n = NDEV;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal < 0 || ordinal >= NDEV)
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice dev)
{
    if (dev < 0 || dev >= NDEV)
        return CUDA_ERROR_INVALID_DEVICE;
    *c = (CUcontext)&ctx_tokens[dev];
    return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *c)
{
    *c = current;
    return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c)
{
    current = c;
    return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *d)
{
    NEED_CTX(dev);
    *d = dev;
    return CUDA_SUCCESS;
}
CUresult cuPointerGetAttribute(void *out, int attr, CUdeviceptr p)
{
    if (attr != CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        return CUDA_ERROR_INVALID_VALUE;
    int i = find_alloc((char *)(uintptr_t)p, 1);
    if (i < 0)
        return CUDA_ERROR_INVALID_VALUE; /* not CUDA memory */
    *(int *)out = allocs[i].dev;
    return CUDA_SUCCESS;
}

static CUresult alloc(void **p, size_t n, int kind)
{
    NEED_CTX(dev);
    if (n == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (n > ((size_t)1 << 40))
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = track(n, kind, dev);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *p = m;
    return CUDA_SUCCESS;
}
CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t n)
{
    void *p;
    CUresult rc = alloc(&p, n, K_DEVICE);
    if (!rc)
        *d = (CUdeviceptr)(uintptr_t)p;
    return rc;
}
CUresult cuMemAllocManaged(CUdeviceptr *d, size_t n, unsigned int f)
{
    void *p;
    CUresult rc = alloc(&p, n, K_MANAGED);
    if (!rc)
        *d = (CUdeviceptr)(uintptr_t)p;
    return rc;
}
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int f) { return alloc(p, n, K_PINNED); }
static CUresult release(void *p, int pinned)
{
    NEED_CTX(dev);
    int i = find_alloc(p, 1);
    if (i < 0 || allocs[i].p != p || (allocs[i].kind == K_PINNED) != pinned) {
        violate("free of memory the driver did not allocate (or with the wrong call)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (queued_uses(p, allocs[i].n))
        violate("free of %zu bytes at %p that queued work still uses", allocs[i].n, p);
    allocs[i].p = NULL;
    free(p);
    return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr d) { return release((void *)(uintptr_t)d, 0); }
CUresult cuMemFreeHost(void *p) { return release(p, 1); }

static CUresult memset_n(CUdeviceptr d, unsigned int v, size_t n, int width, CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    if (d % width)
        return CUDA_ERROR_INVALID_VALUE; /* 16- and 32-bit memsets need aligned addresses */
    if (check_range((char *)(uintptr_t)d, n * width, 1, dev, "a memset"))
        return CUDA_ERROR_INVALID_VALUE;
    enqueue(sid, (op){.kind = OP_MEMSET, .dev = dev, .dst = d, .n = n, .value = v, .width = width});
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return memset_n(d, v, n, 1, s); }
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return memset_n(d, v, n, 2, s); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { return memset_n(d, v, n, 4, s); }

/* Not used by memview any more (its fill kernels do this), but part of the
 * driver, so that earlier builds of memview can be run against this fake. */
CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s);
CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s)
{
    for (size_t r = 0; r < h; r++) {
        CUresult rc = memset_n(d + r * pitch, v, w, 4, s);
        if (rc)
            return rc;
    }
    return CUDA_SUCCESS;
}

static void count_transfer(const char *d, const char *s, size_t n)
{
    if (!is_device_side(d, n) || !is_device_side(s, n))
        transfers++;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    if (check_range((char *)(uintptr_t)dst, n, 0, dev, "a copy's destination") ||
        check_range((char *)(uintptr_t)src, n, 0, dev, "a copy's source"))
        return CUDA_ERROR_INVALID_VALUE;
    count_transfer((char *)(uintptr_t)dst, (char *)(uintptr_t)src, n);
    enqueue(sid, (op){.kind = OP_COPY, .dev = dev, .dst = dst, .src = src, .n = n});
    return CUDA_SUCCESS;
}
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    if (c->srcMemoryType != CU_MEMORYTYPE_UNIFIED || c->dstMemoryType != CU_MEMORYTYPE_UNIFIED ||
        c->srcXInBytes || c->dstXInBytes || c->srcY || c->dstY) {
        violate("a 2-D copy that is not between unified addresses at (0, 0)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (c->srcPitch < c->WidthInBytes || c->dstPitch < c->WidthInBytes) {
        violate("a 2-D copy with a pitch smaller than its width");
        return CUDA_ERROR_INVALID_VALUE;
    }
    const char *d = (const char *)(uintptr_t)c->dstDevice, *sp = (const char *)(uintptr_t)c->srcDevice;
    if (c->Height > 1 && is_device_side(d, 1) && is_device_side(sp, 1)) {
        violate("a device-to-device 2-D copy (pitches %zu and %zu): the driver may refuse pitches not "
                "made by cuMemAllocPitch", c->dstPitch, c->srcPitch);
        return CUDA_ERROR_INVALID_VALUE;
    }
    count_transfer(d, sp, 1);
    copies2d++;
    enqueue(sid, (op){.kind = OP_COPY2D, .dev = dev, .c2 = *c});
    return CUDA_SUCCESS;
}

static void *new_handle(int is_stream, int dev, int blocking)
{
    for (int i = S_FIRST; i < MAXS; i++) {
        if (is_stream && !streams[i].used) {
            streams[i] = (__typeof__(streams[0])){.used = 1, .live = 1, .blocking = blocking, .dev = dev};
            return (void *)(uintptr_t)(0x1000 + i);
        }
        if (!is_stream && !events[i].used) {
            events[i] = (__typeof__(events[0])){.used = 1, .live = 1};
            return (void *)(uintptr_t)(0x1000 + i);
        }
    }
    return NULL;
}
CUresult cuStreamCreate(CUstream *s, unsigned int f)
{
    NEED_CTX(dev);
    *s = new_handle(1, dev, !(f & CU_STREAM_NON_BLOCKING));
    return *s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
/* Work already queued on a destroyed stream still runs (as the driver
 * documents): the stream is only no longer usable by its handle. */
CUresult cuStreamDestroy_v2(CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < S_FIRST)
        return CUDA_ERROR_INVALID_HANDLE;
    streams[sid].live = 0;
    return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    run_until(sid, streams[sid].len);
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    return streams[sid].head == streams[sid].len ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev), eid = eid_of(e);
    if (sid < 0 || eid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    op o = {.kind = OP_WAIT, .dev = dev};
    if (events[eid].recorded)
        add_dep(&o, events[eid].sid, events[eid].seq);
    enqueue(sid, o);
    waits++;
    return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *e, unsigned int f)
{
    NEED_CTX(dev);
    *e = new_handle(0, dev, 0);
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuEventDestroy_v2(CUevent e)
{
    NEED_CTX(dev);
    int eid = eid_of(e);
    if (eid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    events[eid].live = 0;
    events[eid].used = 0;
    return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream s)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev), eid = eid_of(e);
    if (sid < 0 || eid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    enqueue(sid, (op){.kind = OP_RECORD, .dev = dev, .event = eid});
    events[eid].recorded = 1;
    events[eid].sid = sid;
    events[eid].seq = streams[sid].len - 1;
    return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent e)
{
    NEED_CTX(dev);
    int eid = eid_of(e);
    if (eid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    if (events[eid].recorded)
        run_until(events[eid].sid, events[eid].seq + 1);
    return CUDA_SUCCESS;
}

/* ---- modules and kernels ---- */
static const char *kernel_names[] = {
    "memview_copy_u1", "memview_copy_u2", "memview_copy_u4", "memview_copy_u8", "memview_copy_u16",
    "memview_fill_u1", "memview_fill_u2", "memview_fill_u4", "memview_fill_u8", "memview_fill_u16",
    "memview_fill_bytes",
};
#define NKERNELS (int)(sizeof kernel_names / sizeof kernel_names[0])
#define MAXMOD 16
static struct {
    int dev;
    char *text;
} modules[MAXMOD];
static int nmodules;

static CUresult load_module(CUmodule *m, const void *image, int dev)
{
    const char *t = image;
    size_t n = strnlen(t, 1 << 20);
    if (n == 1 << 20 || !strstr(t, ".version ") || !strstr(t, ".target ") || !strstr(t, ".address_size 64"))
        return CUDA_ERROR_INVALID_IMAGE;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)t[i] >= 0x80)
            return CUDA_ERROR_INVALID_PTX; /* PTX is ASCII */
    if (nmodules == MAXMOD)
        return CUDA_ERROR_OUT_OF_MEMORY;
    modules[nmodules].dev = dev;
    modules[nmodules].text = strdup(t);
    *m = (CUmodule)(uintptr_t)(0x100 + nmodules++);
    return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    NEED_CTX(dev);
    if (getenv("MEMVIEW_FAKE_PTX_FAIL"))
        return CUDA_ERROR_INVALID_PTX;
    return load_module(m, image, dev);
}
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts, void **vals)
{
    NEED_CTX(dev);
    char *log = NULL;
    size_t size = 0;
    for (unsigned int i = 0; i < n; i++) {
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
            log = vals[i];
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            size = (size_t)(uintptr_t)vals[i];
    }
    if (getenv("MEMVIEW_FAKE_PTX_FAIL")) {
        if (log && size)
            snprintf(log, size, "ptxas application ptx input, line 42; error   : (the fake's JIT error log)");
        return CUDA_ERROR_INVALID_PTX;
    }
    return load_module(m, image, dev);
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    NEED_CTX(dev);
    int mi = (int)((uintptr_t)m - 0x100);
    if (mi < 0 || mi >= nmodules)
        return CUDA_ERROR_INVALID_HANDLE;
    if (modules[mi].dev != dev)
        violate("cuModuleGetFunction on device %d's module with device %d's context", modules[mi].dev, dev);
    char entry[128];
    snprintf(entry, sizeof entry, ".visible .entry %s(", name);
    if (!strstr(modules[mi].text, entry))
        return CUDA_ERROR_NOT_FOUND;
    for (int k = 0; k < NKERNELS; k++)
        if (strcmp(kernel_names[k], name) == 0) {
            *f = (CUfunction)(uintptr_t)(0x10000 * (mi + 1) + k);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND; /* an entry the fake cannot carry out */
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params,
                        void **extra)
{
    NEED_CTX(dev);
    int sid = sid_of(s, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    uintptr_t fv = (uintptr_t)f;
    int mi = (int)(fv / 0x10000) - 1, k = (int)(fv % 0x10000);
    if (mi < 0 || mi >= nmodules || k >= NKERNELS) {
        violate("launch of an unknown function");
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (modules[mi].dev != dev) {
        violate("launch of device %d's kernel with device %d's context", modules[mi].dev, dev);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    /* The limits of every CUDA GPU: 1024 threads a block (x, y <= 1024, z <= 64),
     * grids of 2^31-1 by 65535 by 65535. */
    if (!gx || !gy || !gz || !bx || !by || !bz || bx > 1024 || by > 1024 || bz > 64 ||
        (unsigned long)bx * by * bz > 1024 || gx > 0x7fffffffu || gy > 65535 || gz > 65535) {
        violate("launch geometry outside the limits: grid (%u, %u, %u), block (%u, %u, %u)", gx, gy, gz, bx, by, bz);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (shared != 0 || extra != NULL || params == NULL || params[0] == NULL) {
        violate("launch with shared memory, extra or without the argument block");
        return CUDA_ERROR_INVALID_VALUE;
    }
    mv_kernel_args *a = malloc(sizeof *a);
    memcpy(a, params[0], sizeof *a); /* the driver copies the parameters at launch */
    if (a->nouter > MV_KERNEL_MAXOUTER || a->itemsize > MV_KERNEL_MAXVALUE) {
        violate("a kernel argument block with %u outer axes, item size %u", a->nouter, a->itemsize);
        free(a);
        return CUDA_ERROR_INVALID_VALUE;
    }
    launches++;
    enqueue(sid, (op){.kind = OP_LAUNCH, .dev = dev, .kernel = k, .args = a, .grid = {gx, gy, gz},
                      .block = {bx, by, bz}});
    return CUDA_SUCCESS;
}

/* A kernel's meaning, over the same argument block: for every row (the outer
 * axes, innermost first) and every element of the inner axis, move one unit
 * (copies), store the first unit of value (fill_u*) or all itemsize bytes of
 * value (fill_bytes). Every access must be aligned to its width and lie in a
 * device allocation of the launching device. */
static void run_kernel(op *o)
{
    const mv_kernel_args *a = o->args;
    int k = o->kernel;
    int fill = k >= 5, width = k == 10 ? (int)a->itemsize : 1 << (k % 5);
    uint64_t rows = 1;
    for (uint32_t j = 0; j < a->nouter; j++)
        rows *= a->outer[j].n;
    if (rows != a->rows) {
        violate("%s: rows %llu is not the product of the outer lengths (%llu)", kernel_names[k],
                (unsigned long long)a->rows, (unsigned long long)rows);
        return;
    }
    for (uint64_t r = 0; r < a->rows; r++) {
        int64_t od = 0, os = 0;
        uint64_t q = r;
        for (uint32_t j = 0; j < a->nouter; j++) {
            uint64_t digit = q % a->outer[j].n;
            q /= a->outer[j].n;
            od += (int64_t)digit * a->outer[j].ds;
            os += (int64_t)digit * a->outer[j].ss;
        }
        for (uint64_t x = 0; x < a->n0; x++) {
            char *d = (char *)(uintptr_t)(a->dst + od + (int64_t)x * a->ds0);
            const char *s = fill ? (const char *)a->value : (const char *)(uintptr_t)(a->src + os + (int64_t)x * a->ss0);
            if (k != 10 && ((uintptr_t)d % width || (!fill && (uintptr_t)s % width))) {
                violate("%s: a misaligned %d-byte access at %p", kernel_names[k], width, (void *)d);
                return;
            }
            if (check_range(d, width, 1, o->dev, kernel_names[k]) ||
                (!fill && check_range(s, width, 1, o->dev, kernel_names[k])))
                return;
            memmove(d, s, width);
        }
    }
}

/* ---- for the tests (through ctypes) ---- */
int fake_violations(void) { return violations; }
void fake_reset_violations(void) { violations = 0; last_violation[0] = 0; }
const char *fake_last_violation(void) { return last_violation; }
long fake_calls(void) { return calls; }
long fake_transfers(void) { return transfers; }
long fake_launches(void) { return launches; }
long fake_copies2d(void) { return copies2d; }
long fake_waits(void) { return waits; }
int fake_context_leaked(void) { return current != NULL; } /* memview must restore "none" */
int fake_live_allocations(void)
{
    int n = 0;
    for (int i = 0; i < MAXALLOC; i++)
        n += allocs[i].p != NULL && allocs[i].kind != K_FOREIGN;
    return n;
}
int fake_live_events(void)
{
    int n = 0;
    for (int i = 0; i < MAXS; i++)
        n += events[i].live;
    return n;
}
/* Work enqueued and not yet carried out, on every stream. */
long fake_queued(void)
{
    long n = 0;
    for (int i = 0; i < MAXS; i++)
        if (streams[i].used)
            n += streams[i].len - streams[i].head;
    return n;
}
/* A consumer honouring a stream named by __cuda_array_interface__ on device
 * dev: waits for it as cuStreamSynchronize would. Returns 0, or
 * CUDA_ERROR_INVALID_HANDLE (and a violation) for a dead stream. */
int fake_sync_stream(uintptr_t handle, int dev)
{
    int sid = sid_of((CUstream)handle, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    run_until(sid, streams[sid].len);
    return CUDA_SUCCESS;
}
/* cuLaunchHostFunc, for tests: fn(data) runs on a thread of the driver's when
 * stream `handle` of device dev reaches it, and the stream waits for it. A
 * Python callback (a ctypes function) takes the GIL there, so whoever waits
 * for the stream while holding the GIL deadlocks, as with CuPy's
 * launch_host_func or Numba's add_callback on a GPU. */
int fake_launch_host_func(uintptr_t handle, int dev, void (*fn)(void *), void *data)
{
    int sid = sid_of((CUstream)handle, dev);
    if (sid < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    enqueue(sid, (op){.kind = OP_HOSTFN, .dev = dev, .fn = fn, .data = data});
    return CUDA_SUCCESS;
}
/* The device is idle again: everything queued runs. */
void fake_drain(void) { drain(); }
/* A "device" allocation made by someone else (a CuPy stand-in) on device dev. */
void *fake_foreign_alloc_on(int dev, size_t n)
{
    void *p = track(n, K_FOREIGN, dev);
    memset(p, 0, n);
    return p;
}
void *fake_foreign_alloc(size_t n) { return fake_foreign_alloc_on(0, n); }
void fake_foreign_free(void *p)
{
    int i = find_alloc(p, 1);
    if (i >= 0 && queued_uses(p, allocs[i].n))
        violate("a producer's memory freed while memview's queued work still uses it");
    if (i >= 0)
        allocs[i].p = NULL;
    free(p);
}
/* Make device dev's context current on this thread (as CuPy or PyTorch would),
 * or none for dev < 0. */
void fake_set_current(int dev) { current = dev < 0 ? NULL : (CUcontext)&ctx_tokens[dev]; }
