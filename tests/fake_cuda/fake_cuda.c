/*
 * fake_cuda.c — a stand-in libcuda.so.1 for machines without a GPU. It is NOT a
 * CUDA implementation and proves nothing about real GPUs (tests/test_gpu.py does,
 * on a GPU machine). It lets CI run memview's own driver-call logic — contexts,
 * allocators, stream/event ordering, the 2-D copy plans, memsets, staging — with
 * "device memory" that is ordinary host memory, and checks how memview calls the
 * driver:
 *   - a context must be current for every call that needs one, and memview must
 *     put back the context that was current before (checked by fake_check());
 *   - every device address written or read must lie inside a live allocation;
 *   - 2-D copies must have pitches >= width;
 *   - destroyed streams and events must not be used.
 * Any violation is counted and described; the Python side asserts none happened.
 * Written for memview's tests from the CUDA driver API's documented signatures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long dptr;

static int ctx_token; /* the one primary context: its address */
static __thread void *current;
static int violations;
static char last_violation[256];
static long calls;
static long waits; /* cuStreamWaitEvent calls that succeeded */

static void violate(const char *what)
{
    violations++;
    snprintf(last_violation, sizeof last_violation, "%s", what);
}

/* ---- allocations (device, pinned, managed: all host memory here) ---- */
#define MAXALLOC 4096
static struct { char *p; size_t n; } allocs[MAXALLOC];

static int track(void *p, size_t n)
{
    for (int i = 0; i < MAXALLOC; i++)
        if (allocs[i].p == NULL) {
            allocs[i].p = p;
            allocs[i].n = n;
            return 0;
        }
    return -1;
}
static int untrack(void *p)
{
    for (int i = 0; i < MAXALLOC; i++)
        if (allocs[i].p == p) {
            allocs[i].p = NULL;
            return 0;
        }
    return -1;
}
/* 1 if [p, p+n) is inside a live allocation; 0 if it is outside all of them
 * (host memory, which is fine for copies); -1 if it straddles one. */
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
static int need_ctx(void)
{
    calls++;
    if (current != &ctx_token) {
        violate("a driver call without the primary context current");
        return 201; /* CUDA_ERROR_INVALID_CONTEXT */
    }
    return 0;
}
static int check_range(const char *p, size_t n, int device_only)
{
    int in = inside(p, n);
    if (in < 0 || (device_only && in == 0 && n > 0)) {
        violate(device_only ? "a device write outside every allocation" : "a copy straddling an allocation");
        return 1;
    }
    return 0;
}

/* ---- streams and events: work runs at once, so ordering is trivially kept;
 * what is checked is that handles are live ---- */
#define MAXH 1024
static int live_streams[MAXH], live_events[MAXH];
static int handle_ok(void *h, int *table)
{
    uintptr_t v = (uintptr_t)h;
    if (v == 0 || v == 1 || v == 2)
        return table == live_streams; /* null, legacy, per-thread streams */
    if (v < 0x1000 || v >= 0x1000 + MAXH || !table[v - 0x1000]) {
        violate(table == live_streams ? "use of a dead stream" : "use of a dead event");
        return 0;
    }
    return 1;
}
static void *new_handle(int *table)
{
    for (int i = 1; i < MAXH; i++)
        if (!table[i]) {
            table[i] = 1;
            return (void *)(uintptr_t)(0x1000 + i);
        }
    return NULL;
}

int cuInit(unsigned f) { return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int ordinal) { if (ordinal != 0) return 101; *d = 0; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int dev) { *c = &ctx_token; return 0; }
int cuCtxGetCurrent(void **c) { *c = current; return 0; }
int cuCtxSetCurrent(void *c) { current = c; return 0; }
int cuPointerGetAttribute(void *out, int attr, dptr p)
{
    if (inside((char *)(uintptr_t)p, 1) != 1)
        return 1; /* CUDA_ERROR_INVALID_VALUE: not CUDA memory */
    *(int *)out = 0;
    return 0;
}

static int alloc(void **p, size_t n)
{
    int rc = need_ctx();
    if (rc)
        return rc;
    if (n == 0)
        return 1;
    if (n > ((size_t)1 << 40))
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    void *m = aligned_alloc(256, (n + 255) / 256 * 256);
    if (m == NULL)
        return 2;
    memset(m, 0xAB, n); /* garbage: memview must clear it */
    track(m, n);
    *p = m;
    return 0;
}
int cuMemAlloc_v2(dptr *d, size_t n) { void *p; int rc = alloc(&p, n); if (!rc) *d = (dptr)(uintptr_t)p; return rc; }
int cuMemAllocManaged(dptr *d, size_t n, unsigned f) { return cuMemAlloc_v2(d, n); }
int cuMemHostAlloc(void **p, size_t n, unsigned f) { return alloc(p, n); }
static int release(void *p)
{
    int rc = need_ctx();
    if (rc)
        return rc;
    if (untrack(p) != 0) {
        violate("free of memory the driver did not allocate");
        return 1;
    }
    free(p);
    return 0;
}
int cuMemFree_v2(dptr d) { return release((void *)(uintptr_t)d); }
int cuMemFreeHost(void *p) { return release(p); }

int cuMemsetD8Async(dptr d, unsigned char v, size_t n, void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams) || check_range((char *)(uintptr_t)d, n, 1))
        return rc ? rc : 1;
    memset((void *)(uintptr_t)d, v, n);
    return 0;
}
int cuMemsetD16Async(dptr d, unsigned short v, size_t n, void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams) || check_range((char *)(uintptr_t)d, 2 * n, 1) || d % 2)
        return rc ? rc : 1;
    for (size_t i = 0; i < n; i++)
        ((unsigned short *)(uintptr_t)d)[i] = v;
    return 0;
}
int cuMemsetD32Async(dptr d, unsigned v, size_t n, void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams) || check_range((char *)(uintptr_t)d, 4 * n, 1) || d % 4)
        return rc ? rc : 1;
    for (size_t i = 0; i < n; i++)
        ((unsigned *)(uintptr_t)d)[i] = v;
    return 0;
}
int cuMemsetD2D32Async(dptr d, size_t pitch, unsigned v, size_t w, size_t h, void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams) || d % 4 || (h > 1 && pitch < 4 * w))
        return rc ? rc : 1;
    for (size_t r = 0; r < h; r++) {
        char *row = (char *)(uintptr_t)d + r * pitch;
        if (check_range(row, 4 * w, 1))
            return 1;
        for (size_t i = 0; i < w; i++)
            ((unsigned *)row)[i] = v;
    }
    return 0;
}
int cuMemcpyAsync(dptr dst, dptr src, size_t n, void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams) || check_range((char *)(uintptr_t)dst, n, 0) ||
        check_range((char *)(uintptr_t)src, n, 0))
        return rc ? rc : 1;
    memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
    return 0;
}

typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    dptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    dptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} memcpy2d;

int cuMemcpy2DAsync_v2(const memcpy2d *c, void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams))
        return rc ? rc : 400;
    if (c->srcMemoryType != 4 || c->dstMemoryType != 4 || c->srcXInBytes || c->dstXInBytes ||
        c->srcY || c->dstY) {
        violate("a 2-D copy that is not between unified addresses at (0, 0)");
        return 1;
    }
    if (c->srcPitch < c->WidthInBytes || c->dstPitch < c->WidthInBytes) {
        violate("a 2-D copy with a pitch smaller than its width");
        return 1;
    }
    for (size_t r = 0; r < c->Height; r++) {
        char *d = (char *)(uintptr_t)c->dstDevice + r * c->dstPitch;
        const char *sp = (const char *)(uintptr_t)c->srcDevice + r * c->srcPitch;
        if (check_range(d, c->WidthInBytes, 0) || check_range(sp, c->WidthInBytes, 0))
            return 1;
        memmove(d, sp, c->WidthInBytes);
    }
    return 0;
}

int cuStreamCreate(void **s, unsigned f) { int rc = need_ctx(); if (rc) return rc; *s = new_handle(live_streams); return 0; }
int cuStreamDestroy_v2(void *s)
{
    int rc = need_ctx();
    if (rc || !handle_ok(s, live_streams) || (uintptr_t)s < 0x1000)
        return rc ? rc : 400;
    live_streams[(uintptr_t)s - 0x1000] = 0;
    return 0;
}
int cuStreamSynchronize(void *s) { int rc = need_ctx(); return rc ? rc : (handle_ok(s, live_streams) ? 0 : 400); }
int cuStreamQuery(void *s) { return cuStreamSynchronize(s); }
int cuStreamWaitEvent(void *s, void *e, unsigned f)
{
    int rc = need_ctx();
    rc = rc ? rc : (handle_ok(s, live_streams) && handle_ok(e, live_events) ? 0 : 400);
    waits += rc == 0;
    return rc;
}
int cuEventCreate(void **e, unsigned f) { int rc = need_ctx(); if (rc) return rc; *e = new_handle(live_events); return 0; }
int cuEventDestroy_v2(void *e)
{
    int rc = need_ctx();
    if (rc || !handle_ok(e, live_events))
        return rc ? rc : 400;
    live_events[(uintptr_t)e - 0x1000] = 0;
    return 0;
}
int cuEventRecord(void *e, void *s)
{
    int rc = need_ctx();
    return rc ? rc : (handle_ok(e, live_events) && handle_ok(s, live_streams) ? 0 : 400);
}
int cuEventSynchronize(void *e) { int rc = need_ctx(); return rc ? rc : (handle_ok(e, live_events) ? 0 : 400); }

/* ---- for the tests (through ctypes) ---- */
int fake_violations(void) { return violations; }
void fake_reset_violations(void) { violations = 0; last_violation[0] = 0; }
const char *fake_last_violation(void) { return last_violation; }
long fake_calls(void) { return calls; }
long fake_waits(void) { return waits; }
int fake_context_leaked(void) { return current != NULL; } /* memview must restore "none" */
int fake_live_allocations(void)
{
    int n = 0;
    for (int i = 0; i < MAXALLOC; i++)
        n += allocs[i].p != NULL;
    return n;
}
int fake_live_events(void)
{
    int n = 0;
    for (int i = 0; i < MAXH; i++)
        n += live_events[i];
    return n;
}
/* A "device" allocation made by someone else (a CuPy stand-in). */
void *fake_foreign_alloc(size_t n) { void *p = aligned_alloc(256, (n + 255) / 256 * 256); memset(p, 0, n); track(p, n); return p; }
void fake_foreign_free(void *p) { untrack(p); free(p); }
