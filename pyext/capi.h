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
#include "forkgate/gate.h"

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
    const int64_t *pending; /* CUDA memory: the shared word naming the stream with pending work
                             * on the memory (CAI "stream", 0 for none); NULL otherwise */
    char *format;          /* fmt_inline, or a PyMem copy of a long format */
    char *dtype;           /* dtype_inline, or a PyMem copy of a long name */
    char fmt_inline[16];
    char dtype_inline[16];
    char typestr[16];
    char device[24];
    /* Exchange-protocol fields (pyext/dlpack.c), cached at creation. */
    int device_id;         /* CUDA ordinal; 0 for host memory */
    int dl_ok;             /* dtype and strides can be described by DLPack */
    uint8_t dl_code;       /* DLPack dtype code and bits, valid when dl_ok */
    uint8_t dl_bits;
    int64_t *dl_strides;   /* strides in elements (shape block, after the byte strides) */
} MVArray;

/* Copies and fills of MV_NOGIL_MIN bytes or more run without the GIL: below it,
 * giving the GIL up and taking it back costs more than the work. */
#define MV_NOGIL_MIN (1 << 16)

/* NOGIL(cond, stmt) runs stmt without the GIL when cond holds, passing the
 * fork gate meanwhile (forkgate/gate.h): a fork waits for it to finish. */
#define NOGIL(cond, stmt)             \
    do {                              \
        if (cond) {                   \
            Py_BEGIN_ALLOW_THREADS    \
            mv_gate_enter();          \
            stmt;                     \
            mv_gate_leave();          \
            Py_END_ALLOW_THREADS      \
        } else {                      \
            stmt;                     \
        }                             \
    } while (0)
/* mv_pending_stream is the CUDA stream with work still pending on the array's
 * memory (CAI "stream" numbering: 1 legacy default, 2 per-thread, else a
 * CUstream), or 0 for none: kept with the memory, in Go, shared by every view.
 * The exchange protocols read it only through here. */
static inline long long
mv_pending_stream(const MVArray *a)
{
    return a->pending ? (long long)__atomic_load_n(a->pending, __ATOMIC_ACQUIRE) : 0;
}

extern PyObject *mv_array_base_type;  /* memview._core.ArrayBase */
extern PyObject *mv_array_type;       /* the facade's subclass, set by set_array_type */
extern PyObject *mv_cuda_error;       /* memview._core.CUDAError (memview.cuda.CUDAError) */

PyObject *mv_make_base_type(void);
int mv_is_array(PyObject *o);
/* mv_new_array wraps Go metadata in a new array object (stealing the Go handle; on
 * failure the handle is released). base may be NULL. */
PyObject *mv_new_array(const mv_meta *m, PyObject *base);
/* mv_take_string returns a PyMem copy of s, a string malloc'd by Go, and frees
 * s; NULL if s is NULL or memory ran out. */
char *mv_take_string(char *s);
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
/* Add the functions of gopy.c and, in the test build, of selftest.c to memview._core. */
int mv_add_gopy_functions(PyObject *mod);
int mv_add_selftests(PyObject *mod);

/* Exchange protocols (pyext/protocols.c and the files it names). */
extern PyMethodDef mv_protocol_methods[];          /* __dlpack__, __arrow_c_*__, ... */
PyObject *mv_get_array_interface(PyObject *self, void *closure); /* __array_interface__ */
void mv_dlpack_cache(MVArray *a);                  /* fills dl_ok, dl_code, dl_bits, dl_strides */
int mv_protocols_init(PyObject *module);           /* adds the protocol functions to memview._core */

#endif
