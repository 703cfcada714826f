/*
 * capi.h — declarations shared by pyext's C files (Python side of the bridge).
 * Everything here is written to the limited API of Python 3.11 (Py_LIMITED_API is
 * set by build.py), so one abi3 extension serves 3.11 and newer.
 */
#ifndef MEMVIEW_CAPI_H
#define MEMVIEW_CAPI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "bridge.h"

/* MVArray is the instance layout of memview's array type. The metadata is copied
 * from Go once, when the object is made; nothing in it changes afterwards except
 * handle (cleared by release()) and exports. */
typedef struct {
    PyObject_HEAD
    uintptr_t handle;      /* cgo.Handle of the Go *memview.Array; 0 once released */
    char *buf;             /* element 0 */
    Py_ssize_t len;        /* product(shape) * itemsize */
    Py_ssize_t itemsize;
    int ndim;
    int readonly;
    int c_contig;
    int f_contig;
    Py_ssize_t exports;    /* live Py_buffer exports */
    Py_ssize_t busy;       /* calls working on the array without the GIL */
    Py_ssize_t *shape;     /* ndim entries, then ndim strides; NULL when ndim == 0 */
    Py_ssize_t *strides;
    PyObject *base;        /* what keeps the memory alive (source object or owning array), or NULL */
    int device_kind;       /* MV_DEV_* */
    long long stream;      /* CUDA stream the data is ordered on (CAI "stream"); 0 for none */
    char *format;          /* fmt_inline, or a PyMem copy of a long format */
    char *dtype;           /* dtype_inline, or format for record dtypes */
    char fmt_inline[16];
    char dtype_inline[16];
    char typestr[16];
    char device[24];
} MVArray;

extern PyObject *mv_array_base_type;  /* memview._core.ArrayBase */
extern PyObject *mv_array_type;       /* the facade's subclass, set by set_array_type */
extern PyObject *mv_cuda_error;       /* memview._core.CUDAError (memview.cuda.CUDAError) */

PyObject *mv_make_base_type(void);
int mv_is_array(PyObject *o);
/* mv_new_array wraps Go metadata in a new array object (stealing the Go handle; on
 * failure the handle is released). base may be NULL. */
PyObject *mv_new_array(const mv_meta *m, PyObject *base);
/* mv_raise turns an mv_err into a Python exception; returns NULL. */
PyObject *mv_raise(const mv_err *e);
/* mv_check_live raises ValueError for a released array; returns 0 if live. */
int mv_check_live(MVArray *a);
/* fork.c: mv_install_fork_handlers registers the pthread_atfork handlers once.
 * mv_check_go raises RuntimeError (and returns -1) in a child forked while Go
 * work could not be stopped, where no Go may run; mv_go_usable says the same
 * without raising. */
int mv_install_fork_handlers(void);
/* memory.c: adds memview.Buffer, memview.Builder and the pool functions to the
 * module; 0 or -1 with an exception. */
int mv_install_memory(PyObject *mod);
int mv_check_go(void);
int mv_go_usable(void);

#endif
