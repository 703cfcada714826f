/*
 * bridge.h — the data that crosses between pyext's C (which knows Python) and its
 * Go (which knows memview). No Python types here, so the Go side can include it.
 */
#ifndef MEMVIEW_BRIDGE_H
#define MEMVIEW_BRIDGE_H

#include <stdint.h>

#define MV_MAXDIM 64 /* PyBUF_MAX_NDIM */

/* Exception kinds a Go error maps to (pyext/errkind classifies errors; core_errors.c
 * names the exception of each kind). */
enum {
    MV_OK = 0,
    MV_VALUE_ERROR = 1,
    MV_TYPE_ERROR = 2,
    MV_INDEX_ERROR = 3,
    MV_BUFFER_ERROR = 4,
    MV_MEMORY_ERROR = 5,
    MV_SYSTEM_ERROR = 6, /* a recovered Go panic: a bug in memview */
    MV_CUDA_ERROR = 7,   /* no driver or device, or a CUDA driver error: memview.cuda.CUDAError */
    MV_FORKED_ERROR = 8, /* set by the Go bridge (go_bridge.h), never by Go: a forked child refused
                          * the call; msg names what needed Go */
    MV_RUNTIME_ERROR = 9, /* what a bound Go package's other errors raise, as gopy does */
};

/* Where an array's memory lives (memview.DeviceKind). */
enum {
    MV_DEV_CPU = 0,
    MV_DEV_CUDA = 1,         /* device memory: no buffer protocol, CAI instead */
    MV_DEV_CUDA_HOST = 2,    /* pinned host memory */
    MV_DEV_CUDA_MANAGED = 3, /* managed memory */
};

/* mv_err carries a Go error to C. */
typedef struct {
    int kind;
    char msg[512];
} mv_err;

/* mv_meta is everything the exporter caches in C when an array object is made, so
 * that getbuffer and the attribute getters never call Go. */
typedef struct {
    uintptr_t handle; /* handle (handles.go) of the Go *memview.Array */
    char *buf;        /* address of element 0 (pinned or off the Go heap) */
    int64_t len;      /* product(shape) * itemsize */
    int64_t itemsize;
    int32_t ndim;
    int32_t readonly;
    char format[16];  /* PEP 3118 format of one item, when shorter than 16 bytes */
    char *long_format; /* else the format, malloc'd by Go: the receiver frees it */
    char dtype[16];   /* the layout's name ("float64", ">f8", a canonical format), when shorter than 16 bytes */
    char *long_dtype; /* else the name, malloc'd by Go: the receiver frees it */
    char typestr[16]; /* array-interface typestr */
    int32_t device_kind; /* MV_DEV_* */
    int32_t device_id;
    char device[24];  /* "cpu", "cuda:0", ... */
    const int64_t *runs; /* the bytes of an item that its fields hold (memview.DType.FieldRuns),
                          * which writes into existing memory touch: NULL for the whole item, else
                          * runs[0] (offset, length) pairs after it; made once per dtype, in C
                          * memory, and never freed (cfield_runs.go) */
    int32_t normal;   /* format is the spelling memview gives new arrays of the layout
                       * (memview.DType.Normal): a copy may take it as it is */
    int64_t *pending; /* CUDA memory: the word holding the stream with memview's work pending on
                       * the memory (CAI "stream", 0 for none), shared by every view of it and
                       * valid while the array is (package cuda's PendingStreamWord); else NULL */
    int64_t shape[MV_MAXDIM];
    int64_t strides[MV_MAXDIM]; /* signed, bytes */
} mv_meta;

/* One item of a basic-indexing key, as the Python facade encodes it. */
typedef struct {
    int64_t kind; /* 0 int, 1 slice, 2 ellipsis, 3 newaxis */
    int64_t value; /* int index */
    int64_t start, stop, step; /* slice; step 0 means None */
    int64_t has_start, has_stop;
} mv_index;

/* Implemented in C, called from Go: give back a buffer imported from Python, or
 * the reference to an object whose CUDA memory was imported. */
void mv_release_import(void *token);
void mv_release_object(void *token);

#endif
