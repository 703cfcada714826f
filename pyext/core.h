/*
 * core.h — the array object and everything about it that needs no other
 * layer: its instance layout (MVArray), its one constructor, the ownership of
 * its memory (core_owner.c has the rules), the creation cache's blocks, the
 * layout rules (the Go core's, ported), element reads and writes, and errors.
 *
 *   core_array.c     the type's slots: the buffer protocol, the cached attributes,
 *                    the one constructor, mv_array_new (every cached field derived there)
 *   core_owner.c     how an array owns its memory, and every transition of that
 *   core_blocks.c    the creation cache: small zero-filled blocks of the default pool
 *   core_child.c     memory a forked child maps for itself
 *   core_layouts.c   views' layouts (indexing, transpose, reshape) and contiguity
 *   core_elements.c  scalar kinds, element reads and writes, the DLPack item type
 *   core_errors.c    Go errors as Python exceptions; the released-array check
 */
#ifndef MEMVIEW_CORE_H
#define MEMVIEW_CORE_H

#include "go.h"

#define MV_SHAPE_INLINE 4 /* dimensions whose shape and strides an array object holds itself */

/* The ways memory can be owned (core_owner.c has the rules). */
enum {
    MV_OWN_NONE = 0, /* nothing: given back, or an array that uses another's owner */
    MV_OWN_GO,       /* a Go *memview.Array (handles.go): memory Go allocated or wraps */
    MV_OWN_IMPORT,   /* a Py_buffer taken in C from an exporter (the array's base) */
    MV_OWN_KEEPER,   /* a Py_buffer of a DLPack keeper (proto_dlpack_import.c) */
    MV_OWN_BLOCK,    /* a block of the creation cache, or a forked child's own mapping */
};

/* mv_owner is the memory one or more arrays use, after CPython's managed
 * buffer: the array that took the memory (its host, which holds it inline)
 * and every C-level view of it reference the one owner; the last of them to
 * let go gives the memory back. Only core_owner.c reads or changes it. */
typedef struct {
    int kind;             /* MV_OWN_* */
    unsigned block_gen;   /* BLOCK: mv_block_gen when the block was taken (0: a child's mapping) */
    Py_ssize_t refs;      /* arrays using the memory: the host until released, and its C-level views */
    uintptr_t handle;     /* the Go array over the memory in the host's layout: GO from the
                           * start; made for IMPORT and KEEPER when Go needs it (BLOCK then
                           * turns GO: Go adopts the block) */
    Py_buffer *import;    /* IMPORT, KEEPER: the exporter's buffer */
    void *block;          /* BLOCK */
    int import_flags;     /* IMPORT, KEEPER: the PyBUF_* request, asked again for Go's own */
} mv_owner;

/* MVArray is the instance layout of memview's array type. The metadata is set
 * once, by the one constructor (mv_array_new); nothing in it changes afterwards
 * except owner (cleared by release()), handle, own, exports and busy. */
typedef struct mv_array_s {
    PyObject_HEAD
    mv_owner *owner;       /* the memory's owner: &own, another array's (a C-level view),
                            * or NULL once released */
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
    /* Exchange-protocol fields (core_elements.c: mv_item_kinds), cached at creation. */
    int device_id;         /* CUDA ordinal; 0 for host memory */
    int dl_ok;             /* dtype and strides can be described by DLPack */
    uint8_t dl_code;       /* DLPack dtype code and bits (0: none), valid for export when dl_ok */
    uint8_t dl_bits;
    int64_t *dl_strides;   /* strides in elements (shape block, after the byte strides) */
    int scalar;            /* MV_SK_*: how C reads and writes one element */
    const int64_t *runs;   /* the bytes of an item its fields hold, which writes into the
                            * memory touch (mv_meta.runs: NULL for all of them) */
    int normal;            /* format is the spelling of new arrays of the layout (mv_meta.normal) */
    uintptr_t handle;      /* a C-level view's own Go array, made when Go code needs the
                            * view (mv_array_handle); the host's is its owner's */
    mv_owner own;          /* the owner this array hosts, when it took memory itself */
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
    return a->owner == NULL;
}

/* mv_go_handle is the Go array of a live array that mv_array_handle has
 * given one: the owner's for the array that hosts it, else the view's own. */
static inline uintptr_t
mv_go_handle(const MVArray *a)
{
    return a->owner == &a->own ? a->own.handle : a->handle;
}

/* Element kinds C reads and writes itself (native byte order); others go
 * through the facade. */
enum { MV_SK_NONE = 0, MV_SK_BOOL, MV_SK_INT, MV_SK_UINT, MV_SK_FLOAT, MV_SK_COMPLEX };

/* mv_pending_stream is the CUDA stream with work still pending on the array's
 * memory (CAI "stream" numbering: 1 legacy default, 2 per-thread, else a
 * CUstream), or 0 for none: kept with the memory, in Go, shared by every view.
 * The exchange protocols read it only through here. */
static inline long long
mv_pending_stream(const MVArray *a)
{
    return a->pending ? (long long)__atomic_load_n(a->pending, __ATOMIC_ACQUIRE) : 0;
}

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

/* ---- core_array.c ---- */

extern PyObject *mv_array_base_type; /* memview._core.ArrayBase (module.c makes it) */
extern PyObject *mv_array_type;      /* the facade's subclass, set by set_array_type */
/* The type's own slots and attributes, for module.c to assemble the type. */
extern PyType_Slot mv_array_core_slots[];
extern PyGetSetDef mv_array_core_getset[];

int mv_is_array(PyObject *o);

/* What an array object is made from: the address of element 0, the layout,
 * the items and the device. */
typedef struct {
    char *buf;
    int ndim;
    const Py_ssize_t *shape;   /* ndim entries (may be NULL when ndim is 0) */
    const Py_ssize_t *strides; /* ndim signed byte strides */
    Py_ssize_t itemsize;
    const char *format;        /* PEP 3118 format of one item */
    const char *dtype;         /* memview's name of the items ("float64", a canonical format) */
    const char *typestr;       /* array-interface typestr ("<f8") */
    int readonly;
    int device_kind;           /* MV_DEV_* */
    int device_id;
    const char *device;        /* "cpu", "cuda:0", ... */
    const int64_t *pending;    /* CUDA memory: its shared pending-stream word; else NULL */
    const int64_t *runs;       /* the items' field bytes (mv_meta.runs); NULL for whole items */
    int normal;                /* format is new memory's spelling of the layout (mv_meta.normal) */
    PyObject *base;            /* reported as base (referenced); may be NULL */
    const MVArray *like;       /* a view's parent: its items and device are taken as they
                                * are, and the fields above from itemsize to runs unread */
    int short16;               /* format, dtype and typestr each hold their text and its NUL
                                * within 16 bytes that may all be read (copied whole) */
} mv_desc;

/* mv_short16 says whether s (format or dtype text in a buffer of at least 16
 * bytes) fits mv_desc.short16. */
static inline int
mv_short16(const char *s)
{
    return memchr(s, 0, 16) != NULL;
}

/* mv_array_new is the one constructor of array objects: it copies d and derives
 * every cached field from it (size in bytes, contiguity, the DLPack form, how C
 * reads an element). The new array owns no memory yet — it reads as released —
 * until its maker gives it some (mv_own_go, mv_own_import, mv_own_block or
 * mv_hold; core_owner.c). NULL with an exception. */
MVArray *mv_array_new(const mv_desc *d);
/* mv_new_array wraps Go metadata in a new array object (stealing the Go handle;
 * on failure the handle is released), deriving every cached field. base may be
 * NULL. */
PyObject *mv_new_array(const mv_meta *m, PyObject *base);
/* mv_finish_meta wraps a Go result: mv_raise on rc != 0, else a new array. */
PyObject *mv_finish_meta(int rc, const mv_meta *m, const mv_err *e, PyObject *base);
/* mv_view_base is what a view of parent reports as its base: the owner of the
 * memory (the parent's base, or the parent). */
PyObject *mv_view_base(MVArray *parent);

/* ---- core_errors.c ---- */

/* mv_exception_type is the exception class of an MV_*_ERROR kind (borrowed; gopyrt
 * uses it too); mv_set_error raises the Python exception of a Go error and
 * returns NULL. */
PyObject *mv_exception_type(int kind);
PyObject *mv_set_error(const mv_err *e);
/* mv_check_live raises ValueError for a released array (mv_raise_released)
 * and returns -1; 0 if live. Every operation starts with it: inline. handle,
 * hold, import and block are unset once released, and in a zeroed object
 * (which Python cannot make: tp_new refuses). */
int mv_raise_released(void);
static inline int
mv_check_live(MVArray *a)
{
    return mv_released(a) ? mv_raise_released() : 0;
}

/* ---- core_owner.c: the memory an array owns (see the file's opening) ---- */

/* A new array (mv_array_new) owns nothing and reads as released until its
 * maker gives it memory with one of these (they cannot fail):
 *   mv_own_go     a Go array handle, stolen;
 *   mv_own_import a Py_buffer the array's base exported (PyMem-allocated), stolen,
 *                 with the PyBUF_* flags it was asked with;
 *   mv_own_block  a block of the creation cache (mv_block_take), or with gen 0
 *                 a forked child's own mapping (mv_child_map), len bytes;
 *   mv_hold       the memory of p: v is a C-level view of p. */
void mv_own_go(MVArray *a, uintptr_t handle);
void mv_own_import(MVArray *a, Py_buffer *view, int flags);
void mv_own_block(MVArray *a, void *block, unsigned gen);
void mv_hold(MVArray *v, MVArray *p);
/* mv_raise is mv_set_error after a failed call: it also gives back the handles
 * made for the call (mv_undo_fresh_handles). */
PyObject *mv_raise(const mv_err *e);
/* mv_array_handle returns the array's Go handle (mv_go_handle afterwards),
 * making it first for a C-level view, an import or a cached block; 0 with an
 * exception for a released array or a Go error. */
uintptr_t mv_array_handle(MVArray *a);
/* mv_release is Array.release() once it is allowed: 0, or -1 with an exception. */
int mv_release(MVArray *a);
/* mv_owner_dealloc lets go of everything a going array holds. */
void mv_owner_dealloc(MVArray *a);
/* mv_undo_fresh_handles gives back the handles made for C-level views and
 * imports since the last failure (a failed call leaves Go as it found it). */
void mv_undo_fresh_handles(void);
/* mv_import_keeper_type is the type of DLPack keepers (proto_dlpack_import.c
 * sets it): an import from one is an MV_OWN_KEEPER, and Go's own buffer is
 * asked from the keeper again. */
extern PyTypeObject *mv_import_keeper_type;

/* ---- core_blocks.c: the creation cache ---- */

/* Blocks of at most MV_BLOCK_MAX bytes of the default pool. mv_block_take
 * hands out a block, zero-filled unless zero is 0 (for a copy's destination,
 * whose every byte is written at once) (NULL without an exception when the cache
 * cannot serve the size or pool, with one when Go failed); mv_block_give takes
 * one back (gen 0: a child's mapping, unmapped); mv_block_adopt hands block,
 * in a's layout, over to a new Go array and returns its handle (0 with an
 * exception). mv_blocks_flush gives back every free block and settles the
 * pool's counts (before statistics are read); mv_blocks_pool_changed does that
 * when the default pool changes. */
#define MV_BLOCK_MAX (256 * 1024)
extern unsigned mv_block_gen;
void *mv_block_take(Py_ssize_t nbytes, int zero);
void mv_block_give(void *p, Py_ssize_t nbytes, unsigned gen);
uintptr_t mv_block_adopt(MVArray *a, void *block);
int mv_blocks_flush(void);
void mv_blocks_pool_changed(void);
extern PyMethodDef mv_block_functions[]; /* blocks_stats, blocks_flush */

/* ---- core_child.c: memory of a forked child's own ---- */

/* mv_child_map maps nbytes of zero-filled memory of the child's own (NULL with
 * MemoryError); mv_child_unmap gives it back. */
void *mv_child_map(Py_ssize_t nbytes);
void mv_child_unmap(void *p, Py_ssize_t nbytes);
extern PyMethodDef mv_child_functions[]; /* child_memory */

/* ---- core_layouts.c ---- */

/* A layout computed in C, relative to the array it was computed from. */
typedef struct {
    int ndim;
    Py_ssize_t offset; /* bytes from the parent's element 0 */
    Py_ssize_t shape[MV_MAXDIM];
    Py_ssize_t strides[MV_MAXDIM];
} mv_layout;

/* Each returns 1 with the layout in out, or 0 when the fast path leaves the
 * work to Go (other key or argument types, and every error: Go raises them).
 * mv_index_layout also says whether one element is selected; axes (transpose)
 * and shape (reshape) are a tuple or a list, axes NULL reverses. */
int mv_index_layout(const MVArray *a, PyObject *key, mv_layout *out, int *scalar);
int mv_transpose_layout(const MVArray *a, PyObject *axes, mv_layout *out);
int mv_reshape_layout(const MVArray *a, PyObject *shape, mv_layout *out);

/* mv_contiguity sets *c and *f to whether the layout is C- or F-contiguous,
 * as memview.Layout.CContiguous / FContiguous (PyBuffer_IsContiguous). */
void mv_contiguity(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize, int *c,
                   int *f);

/* ---- core_elements.c ---- */

/* A basic dtype: a row of dtypes_table.h, which tools/gendtypes writes from
 * the Go core's table. mv_basic_of is the basic dtype of a NumPy kind ('b',
 * 'i', 'u', 'f', 'c') and item size, or NULL; mv_basic_of_typestr that of a
 * typestr in native byte order ("<f8", "|u1"), or NULL. */
typedef struct {
    const char *name;
    char kind;
    Py_ssize_t itemsize;
    const char *format;
    const char *typestr;
} mv_basic;
const mv_basic *mv_basic_of(char kind, Py_ssize_t itemsize);
const mv_basic *mv_basic_of_typestr(const char *typestr);
/* DLPack's type codes by kind (the spec's DLDataTypeCode): mv_dl_code of a
 * basic dtype's kind, and mv_dl_kind of a code (0 for a code memview has no
 * basic dtype of). */
int mv_dl_code(char kind);
char mv_dl_kind(int code);

/* mv_item_kinds fills what C and DLPack make of the items of a (its typestr,
 * itemsize and strides set), or of a view of like (the same items): scalar
 * (how C reads and writes an element), dl_code and dl_bits (the DLPack type;
 * dl_bits 0 for none), dl_ok and dl_strides (whether DLPack can describe the
 * array, and its strides in items). */
void mv_item_kinds(MVArray *a, const MVArray *like);
/* The element at p as a Python scalar (a->scalar must not be MV_SK_NONE). */
PyObject *mv_read_scalar(const MVArray *a, const char *p);
/* Stores value at p when it converts exactly as the facade would for the plain
 * cases: 1 written, 0 left to the facade. */
int mv_write_scalar(const MVArray *a, char *p, PyObject *value);

#endif
