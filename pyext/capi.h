/*
 * capi.h — declarations shared by pyext's C files (Python side of the bridge).
 * Everything here is written to the limited API of Python 3.11 (Py_LIMITED_API is
 * set by build.py), so one abi3 extension serves 3.11 and newer.
 */
#ifndef MEMVIEW_CAPI_H
#define MEMVIEW_CAPI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include "bridge.h"

#define MV_SHAPE_INLINE 4 /* dimensions whose shape and strides an array object holds itself */

/* MVArray is the instance layout of memview's array type. The metadata is copied
 * from Go once, when the object is made (or computed in C for a C-level view,
 * views.c); nothing in it changes afterwards except handle (cleared by release(),
 * made lazily for a C-level view), hold, cviews, kept and exports. */
typedef struct mv_array_s {
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
    /* C-level views (views.c). A view made in C has no Go handle until Go code
     * needs one (mv_array_handle); it references hold, the array whose Go
     * handle keeps the memory. The array is live while handle or hold is set. */
    struct mv_array_s *hold; /* the array whose handle keeps the memory; NULL for one with its own */
    Py_ssize_t cviews;     /* C-level views holding this array */
    uintptr_t kept;        /* the handle of an array released while cviews > 0, given back
                            * to Go when the last of them goes */
    int scalar;            /* MV_SK_*: how C reads and writes one element */
    /* Imports made in C (import_fast.c): the exporter's Py_buffer, owned by the
     * array until release(); Go gets a Py_buffer of its own when it needs the
     * array. The array is also live while import is set. */
    Py_buffer *import;
    Py_buffer *kept_import; /* import of an array released while cviews > 0 */
    int import_flags;      /* the PyBUF_* request of the import */
    /* Arrays made in C from the creation cache (create.c, blocks.c): the block
     * the array owns until Go adopts it (mv_array_handle) or it goes back to
     * the cache. The array is also live while block is set. */
    void *block;
    void *kept_block;      /* block of an array released while cviews > 0 */
    unsigned block_gen;    /* mv_block_gen when the block was taken */
    /* shape, strides and DLPack strides of arrays of up to MV_SHAPE_INLINE
     * dimensions (mv_shape_alloc): no allocation of their own */
    Py_ssize_t shape_inline[3 * MV_SHAPE_INLINE];
} MVArray;

/* mv_shape_alloc sets a->shape to room for nd shape entries, nd byte strides
 * and nd DLPack strides (inline up to MV_SHAPE_INLINE dimensions), and
 * a->strides after the shape; -1 when memory ran out (no exception set).
 * dealloc frees it (mv_shape_free). */
static inline int
mv_shape_alloc(struct mv_array_s *a, int nd)
{
    if (nd <= MV_SHAPE_INLINE)
        a->shape = a->shape_inline;
    else if ((a->shape = PyMem_Malloc(3 * (size_t)nd * sizeof(Py_ssize_t))) == NULL)
        return -1;
    a->strides = a->shape + nd;
    return 0;
}

static inline void
mv_shape_free(struct mv_array_s *a)
{
    if (a->shape != a->shape_inline)
        PyMem_Free(a->shape);
    a->shape = NULL;
}

/* mv_released: the array has no memory any more (release() ran), or never had. */
static inline int
mv_released(const MVArray *a)
{
    return a->handle == 0 && a->hold == NULL && a->import == NULL && a->block == NULL;
}

/* Element kinds C reads and writes itself (native byte order); others go
 * through the facade. */
enum { MV_SK_NONE = 0, MV_SK_BOOL, MV_SK_INT, MV_SK_UINT, MV_SK_FLOAT, MV_SK_COMPLEX };

/* Copies and fills of MV_NOGIL_MIN bytes or more run without the GIL: below it,
 * giving the GIL up and taking it back costs more than the work. */
#define MV_NOGIL_MIN (1 << 16)

/* NOGIL(cond, stmt) runs stmt without the GIL when cond holds. */
#define NOGIL(cond, stmt)             \
    do {                              \
        if (cond) {                   \
            Py_BEGIN_ALLOW_THREADS    \
            stmt;                     \
            Py_END_ALLOW_THREADS      \
        } else {                      \
            stmt;                     \
        }                             \
    } while (0)

/* fork.c: mv_in_child is set in a process forked after memview was loaded, where
 * no C may call Go. mv_go_usable says whether Go may be called; mv_check_go
 * raises the fork's RuntimeError (and returns -1) where it may not;
 * mv_raise_forked raises it naming what needed Go and returns NULL. */
extern int mv_in_child;
extern void (*mv_fork_child_hook)(void);
static inline int
mv_go_usable(void)
{
    return !mv_in_child;
}
int mv_check_go(void);
PyObject *mv_raise_forked(const char *what);
PyObject *mv_raise_forked_cuda(const char *what); /* as memview.cuda.CUDAError */
PyObject *mv_raise_forked_as(PyObject *type, const char *what);
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
/* views.c: mv_array_handle returns the array's Go handle, making it first for a
 * C-level view; 0 with an exception for a released array or a Go error.
 * mv_drop_hold lets go of a C-level view's hold. mv_scalar_kind fills
 * a->scalar from the typestr and itemsize. */
uintptr_t mv_array_handle(MVArray *a);
void mv_drop_hold(MVArray *a);
/* mv_undo_fresh_handles gives back the handles made for C-level views since
 * the last failure (a failed call leaves Go as it found it); mv_forget_fresh
 * forgets an array that goes or is released. */
void mv_undo_fresh_handles(void);
/* import_fast.c: mv_import_fast makes an array over view (taking it) without
 * Go, or returns NULL — with an exception only for a failure of its own (out
 * of memory); without one the caller takes the Go path. obj becomes the
 * array's base (may be NULL). mv_import_handle gives
 * Go the import (a Py_buffer of its own) and returns the new handle, 0 with an
 * exception. mv_import_free releases and frees *v and sets it NULL. */
PyObject *mv_import_fast(PyObject *obj, Py_buffer *view, int readonly, int flags);
/* mv_import_as is mv_import_fast with the layout given (strides NULL: C order)
 * and items of format (a forked child's pickles); mv_install_import_formats
 * describes the basic formats once, at install (0, or -1 with an exception). */
PyObject *mv_import_as(PyObject *obj, Py_buffer *view, int nd, const Py_ssize_t *shape, const Py_ssize_t *strides,
                       const char *format, int readonly, int flags);
int mv_install_import_formats(void);
/* mv_import_format is mv_import_fast reading the items as format (a ctypes type's,
 * python/memview/_cdata.py) instead of the exporter's own. */
PyObject *mv_import_format(PyObject *obj, Py_buffer *view, const char *format, int readonly, int flags);
/* dlpack_import.c: mv_dl_is_keeper says whether o owns a DLPack tensor
 * imported without Go (the exporter of such an array's import). */
int mv_dl_is_keeper(PyObject *o);
uintptr_t mv_import_handle(MVArray *a, Py_buffer *v);
void mv_import_free(Py_buffer **v);
void mv_forget_fresh(MVArray *a);
/* mv_pymem_strdup returns a PyMem copy of s, or NULL when memory ran out (no
 * exception set). */
char *mv_pymem_strdup(const char *s);
/* mv_layout_int64 copies a's shape and byte strides into int64 arrays of
 * MV_MAXDIM entries, the form the Go bridge takes them in. */
static inline void
mv_layout_int64(const struct mv_array_s *a, int64_t *shape, int64_t *strides)
{
    for (int k = 0; k < a->ndim; k++) {
        shape[k] = a->shape[k];
        strides[k] = a->strides[k];
    }
}
/* mv_contiguity sets *c and *f to whether the layout is C- or F-contiguous. */
void mv_contiguity(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t size,
                   Py_ssize_t itemsize, int *c, int *f);
/* blocks.c, the creation cache: blocks of at most MV_BLOCK_MAX bytes of the
 * default pool. mv_block_take hands out a zero-filled block (NULL without an
 * exception when the cache cannot serve the size or pool, with one when Go
 * failed); mv_block_give takes one back; mv_block_drop gives back *b (if any)
 * and clears it; mv_block_adopt hands a's block over to a new Go array and
 * returns its handle (0 with an exception). mv_blocks_flush gives back every
 * free block and settles the pool's counts (before statistics are read);
 * mv_blocks_pool_changed does that when the default pool changes. */
#define MV_BLOCK_MAX (64 * 1024)
extern unsigned mv_block_gen;
void *mv_block_take(Py_ssize_t nbytes);
void mv_block_give(void *p, Py_ssize_t nbytes, unsigned gen);
static inline void
mv_block_drop(MVArray *a, void **b)
{
    if (*b != NULL) {
        void *p = *b;
        *b = NULL;
        mv_block_give(p, a->len, a->block_gen);
    }
}
uintptr_t mv_block_adopt(MVArray *a, void *block);
int mv_blocks_flush(void);
void mv_blocks_pool_changed(void);
int mv_install_blocks(PyObject *mod);
/* create.c: mv.empty/zeros and Array.copy made in C for small host arrays. */
extern PyMethodDef mv_create_methods[];
int mv_install_create(PyObject *mod);
void mv_scalar_kind(MVArray *a);
PyObject *mv_get_T(PyObject *self, void *closure);
extern PyMethodDef mv_view_methods[];
extern PyType_Slot mv_view_slots[];
int mv_views_init(PyObject *mod);
PyObject *mv_selftest_c_layout(PyObject *mod, PyObject *args); /* selftest.c's _c_layout */
/* mv_raise turns an mv_err into a Python exception; returns NULL. */
PyObject *mv_raise(const mv_err *e);
/* mv_check_live raises ValueError for a released array; returns 0 if live. */
int mv_check_live(MVArray *a);
/* hostwork.c: memview's own host work in C, for a forked child (fork.c).
 * mv_child_map maps nbytes of zero-filled memory of the child's own (NULL with
 * MemoryError); mv_child_unmap gives it back. mv_host_assign copies src (strides
 * ss, 0 on broadcast axes) into dst as if through a temporary; mv_host_broadcast
 * gives the strides that read a layout as an array of shape dshape (ValueError
 * when it does not broadcast); mv_host_order_strides the strides of a dense copy
 * of a in order 'C', 'F', 'A' or 'K'. Each returns 0, or -1 with an exception.
 * create.c: mv_child_empty and mv_child_copy make arrays there; views.c:
 * mv_child_view (an encoded key, as _core.view takes it), mv_child_transpose,
 * mv_child_reshape and mv_child_readonly make views there, raising the errors
 * the facade's slow paths leave to Go elsewhere. */
void *mv_child_map(Py_ssize_t nbytes);
void mv_child_unmap(void *p, Py_ssize_t nbytes);
int mv_host_assign(char *dst, const Py_ssize_t *ds, const char *src, const Py_ssize_t *ss, const Py_ssize_t *shape,
                   int nd, Py_ssize_t itemsize);
int mv_host_broadcast(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, int dnd, const Py_ssize_t *dshape,
                      Py_ssize_t *out);
int mv_host_order_strides(const struct mv_array_s *a, char order, Py_ssize_t *strides);
int mv_install_hostwork(PyObject *mod);
PyObject *mv_child_empty(int nd, const Py_ssize_t *shape, const char *dtype, char order);
PyObject *mv_child_copy(struct mv_array_s *a, char order);
PyObject *mv_child_view(struct mv_array_s *a, PyObject *enc);
PyObject *mv_child_transpose(struct mv_array_s *a, PyObject *axes);
PyObject *mv_child_reshape(struct mv_array_s *a, PyObject *shape);
PyObject *mv_child_readonly(struct mv_array_s *a);
/* hostwork.c: mv_child_import_foreign makes a read-only host array over data
 * (nd, shape, C order, items of format and itemsize) that another library lent
 * (token: released once the array's memory is no longer used); NULL with an
 * exception, the token still the caller's. create.c: mv_known_format is the
 * format of a dtype name already resolved, or NULL. */
struct mv_foreign;
PyObject *mv_child_import_foreign(PyObject *base, struct mv_foreign *token, void *data, int nd,
                                  const int64_t *shape, Py_ssize_t itemsize, const char *format);
const char *mv_known_format(const char *dtype);

/* fork.c: mv_install_fork_handlers registers the pthread_atfork handler once.
 * gopy_gate.c: mv_gate_gopy_module wraps every function of gopy's extension
 * module (by its import name) in the fork check; 0 or -1 with an exception. */
int mv_install_fork_handlers(void);
int mv_gate_gopy_module(const char *module);
/* memory.c: adds memview.Buffer, memview.Builder and the pool functions to the
 * module; 0 or -1 with an exception. */
int mv_install_memory(PyObject *mod);
/* dlpack.c: use PyObject_VectorcallMethod to ask producers (on, where the
 * interpreter has it) or the bound-method fallback (off); returns whether the
 * vectorcall is in use. For the test build. */
int mv_dlpack_selftest_vectorcall(int on);
/* Add the functions of gopy.c and, in the test build, of selftest.c to memview._core. */
int mv_add_gopy_functions(PyObject *mod);
int mv_add_selftests(PyObject *mod);

/* Exchange protocols (pyext/protocols.c and the files it names). */
extern PyMethodDef mv_protocol_methods[];          /* __dlpack__, __arrow_c_*__, ... */
PyObject *mv_get_array_interface(PyObject *self, void *closure); /* __array_interface__ */
void mv_dlpack_cache(MVArray *a);                  /* fills dl_ok, dl_code, dl_bits, dl_strides */
int mv_protocols_init(PyObject *module);           /* adds the protocol functions to memview._core */

#endif
