/*
 * mem.h — memview's raw-memory objects (Python side): memview.Buffer
 * (mem_buffer.c), memview.Builder (mem_builder.c) and the pool functions
 * (mem_pools.c), installed into memview._core by module.c.
 */
#ifndef MEMVIEW_MEM_H
#define MEMVIEW_MEM_H

#include "proto.h"
#include "memory_bridge.h"

/* MVBuffer is the instance layout of memview's Buffer type: metadata copied
 * from Go when the object is made (and after a resize); getbuffer reads only
 * these fields. */
typedef struct {
    PyObject_HEAD
    uintptr_t handle;     /* handle of the Go *memview.Buffer; 0 once released */
    char *data;           /* first byte; NULL once released */
    Py_ssize_t size;      /* shape[0] of an export */
    Py_ssize_t capacity;
    Py_ssize_t one;       /* the stride of an export: 1 */
    Py_ssize_t exports;   /* live Py_buffer exports */
    Py_ssize_t busy;      /* calls working on the buffer without the GIL */
    int mutable_;
    int resizable;
    int device_kind;      /* MV_DEV_* */
    PyObject *parent;     /* the Buffer this one is a slice or view of, or NULL */
    char device[24];
} MVBuffer;

/* MVBuilder is the instance layout of memview's Builder type. The items are
 * written by C straight into Go-owned memory (off the Go heap); Go is called
 * to grow it and to finish. */
typedef struct {
    PyObject_HEAD
    uintptr_t handle;     /* handle of the Go builder; 0 once released */
    char *data;           /* the builder's memory, NULL before the first item */
    Py_ssize_t len;       /* bytes written */
    Py_ssize_t cap;       /* bytes of data */
    Py_ssize_t itemsize;
    Py_ssize_t busy;      /* a copy runs without the GIL */
    int kind;             /* MV_K_*: how C converts a value */
    PyObject *dtype;      /* the dtype name (str) */
    PyObject *packer;     /* value -> item bytes, for values C does not convert */
} MVBuilder;


extern PyObject *mv_buffer_base_type;  /* memview._core.BufferBase */
extern PyObject *mv_builder_base_type; /* memview._core.BuilderBase */

int mv_is_buffer(PyObject *o);
/* mv_new_buffer wraps Go metadata in a new Buffer object (stealing the Go
 * handle; on failure the handle is released). parent may be NULL. */
PyObject *mv_new_buffer(const mv_buf_meta *m, PyObject *parent);

/* How C converts a value of each basic dtype, in the order of dtypes_table.h from
 * 1; MV_K_PACK: through the packer. */
enum {
    MV_K_PACK = 0,
    MV_K_BOOL, MV_K_I8, MV_K_I16, MV_K_I32, MV_K_I64, MV_K_U8, MV_K_U16, MV_K_U32, MV_K_U64,
    MV_K_F16, MV_K_F32, MV_K_F64, MV_K_C64, MV_K_C128,
};

/* mem_builder_items.c: mv_builder_kind is the MV_K_* of a dtype name;
 * mv_builder_convert writes one item holding v at dst (b->itemsize bytes; 0,
 * or -1 with the exception assignment would raise); mv_builder_convert_exact
 * does so in place only for a value of an exact built-in type C converts
 * without running Python code (float, int, bool, complex): 0 done, -1 error,
 * 1 not converted here. */
int mv_builder_kind(const char *name);
int mv_builder_convert(MVBuilder *b, PyObject *v, char *dst);
int mv_builder_convert_exact(MVBuilder *b, PyObject *v, char *dst);

int mv_install_buffer(PyObject *mod);
int mv_install_builder(PyObject *mod);
int mv_install_pools(PyObject *mod);

/* mv_pool_arg reads a pool id (a non-negative int; 0 is the default pool). */
int mv_pool_arg(PyObject *o, unsigned long long *id);

#endif
