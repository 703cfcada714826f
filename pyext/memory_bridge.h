/*
 * memory_bridge.h — what crosses between pyext's C and Go for memview.Buffer,
 * memview.Builder and memview.Pool objects (mem_buffer.c, mem_builder.c, mem_pools.c and
 * buffers.go, builders.go, pools.go). No Python types here.
 */
#ifndef MEMVIEW_MEMORY_BRIDGE_H
#define MEMVIEW_MEMORY_BRIDGE_H

#include <stdint.h>

/* mv_buf_meta is what a Buffer object caches in C: getbuffer and the
 * attributes read it and call no Go. */
typedef struct {
    uintptr_t handle;  /* handle of the Go *memview.Buffer */
    char *data;        /* first byte (off the Go heap, or external memory) */
    int64_t size;
    int64_t capacity;
    int32_t mutable_;
    int32_t resizable;
    int32_t device_kind; /* MV_DEV_* */
    int32_t device_id;
    char device[24];
} mv_buf_meta;

/* Pool kinds for mv_go_pool_new. */
enum {
    MV_POOL_BACKEND = 0, /* name: "host", "mmap", or a CUDA device name */
    MV_POOL_PROXY = 1,   /* counts what goes through it to inner */
    MV_POOL_LOGGING = 2, /* logs each allocate/free through the log hook */
    MV_POOL_CHECKED = 3, /* records each live allocation's origin */
};

/* Implemented in C (mem_pools.c), called from Go with or without the GIL:
 * mv_pool_log hands one line of a logging pool to Python; mv_py_origin writes
 * the calling Python thread's traceback (most recent call last) into buf and
 * returns its length. */
void mv_pool_log(uint64_t pool, const char *line);
int mv_py_origin(char *buf, int n);

#endif
