/*
 * ops.h — what memview's array operations share: made in C where C can
 * (creation from the cache, views, imports of the usual exporters, and all of
 * a forked child's host work) and through Go otherwise.
 *
 *   ops_create.c   mv.empty/zeros and Array.copy in C for small host arrays
 *   ops_views.c    indexing with every key, element access, T, transpose, reshape, len, iter
 *   ops_fields.c   record fields by name: a["b"], a[["a", "c"]]
 *   ops_assign.c   the one engine that writes host arrays: assignment, fill, copyto
 *   ops_cast.c     casts between the numeric item types, as NumPy's unsafe casts
 *   ops_import.c   from_buffer of the usual exporters without Go
 *   ops_host.c     strided copies, broadcasting, temporaries, foreign memory, C-level views
 *   ops_go.c       the operations Go does: creation, import, large and CUDA copies
 *   ops_dtype.c    what Go says about item types: one cache, each answer asked once
 *   ops_cuda.c     CUDA devices, streams and pool statistics
 */
#ifndef MEMVIEW_OPS_H
#define MEMVIEW_OPS_H

#include "core.h"
#include "foreign.h"

/* ---- ops_create.c ---- */

/* Array methods (copy) and the module functions of creation in C. */
extern PyMethodDef mv_create_methods[];
int mv_install_create(PyObject *mod);
/* mv_child_empty and mv_child_copy make arrays in a forked child; mv_known_format
 * is the format of a dtype name already resolved, or NULL. */
PyObject *mv_child_empty(int nd, const Py_ssize_t *shape, const char *dtype, char order);
PyObject *mv_child_copy(MVArray *a, char order);
const char *mv_known_format(const char *dtype);

/* ---- ops_views.c ---- */

/* The array type's slots (indexing, len, iteration), methods and attributes
 * (T), and the module functions (readonly_view, numpy_view). */
extern PyType_Slot mv_view_slots[];
extern PyMethodDef mv_view_methods[];
extern PyGetSetDef mv_view_getset[];
extern PyMethodDef mv_view_functions[];
/* selftest.c's _c_layout: the layout ops_views.c computes. */
PyObject *mv_selftest_c_layout(PyObject *mod, PyObject *args);


/* ---- ops_fields.c: record fields by name ---- */

/* mv_is_field_key: key is a str or a non-empty list of str (NumPy's a["b"] and
 * a[["a", "c"]]); mv_field_view is the view of those fields of a (IndexError
 * for an array without fields, as NumPy; ValueError for a name it has not). */
int mv_is_field_key(PyObject *key);
PyObject *mv_field_view(MVArray *a, PyObject *key);

/* ---- ops_assign.c: the one engine that writes host arrays ---- */

/* mv_assign_layout writes value into the part of a that l selects, as
 * a[key] = value; mv_assign_all into all of a. 0, or -1 with the exception
 * (nothing written when the value is refused). mv_element_value is one
 * element of a at p as a Python value (a memview.record for a record). */
int mv_assign_layout(MVArray *a, const mv_layout *l, PyObject *value);
int mv_assign_all(MVArray *a, PyObject *value);
PyObject *mv_element_value(const MVArray *a, const char *p);
extern PyMethodDef mv_assign_methods[];   /* fill */
extern PyMethodDef mv_assign_functions[]; /* set_codecs, copyto */

/* ---- ops_cast.c: casts between the numeric item types, as NumPy's ---- */

/* A numeric item type: its kind ('b', 'i', 'u', 'f', 'c'), size, whether its
 * bytes are in the other byte order, and its index in ops_cast.c's tables. */
typedef struct {
    char kind;
    int size;
    int swapped;
    int type;
} mv_num;
/* What the hardware reported while a cast ran. */
enum { MV_CAST_INVALID = 1, MV_CAST_OVERFLOW = 2 };
/* mv_num_of: the numeric type of an array-interface typestr ("<f8", ">i4",
 * "|b1"): 1, or 0 for items that are not one (records, strings, long double). */
int mv_num_of(const char *typestr, mv_num *out);
/* mv_cast_strided casts every item of shape from s (strides ss, 0 on broadcast
 * axes; type sn) to d (strides ds; type dn), which must not overlap, as
 * np.copyto(casting="unsafe") does; no GIL needed. It returns MV_CAST_* flags. */
int mv_cast_strided(char *d, const Py_ssize_t *ds, mv_num dn, const char *s, const Py_ssize_t *ss, mv_num sn,
                    const Py_ssize_t *shape, int nd);
/* mv_cast_prewarn gives NumPy's ComplexWarning before a complex-to-real cast;
 * mv_cast_postwarn NumPy's RuntimeWarnings (or FloatingPointError, as NumPy's
 * error state says) for what a cast reported. 0, or -1 with the exception. */
int mv_cast_prewarn(mv_num d, mv_num s);
int mv_cast_postwarn(int flags);
extern PyMethodDef mv_cast_functions[]; /* complex_warning */

/* ---- ops_import.c ---- */

/* mv_import_fast makes an array over view (taking it) without Go, or returns
 * NULL — with an exception only for a failure of its own (out of memory);
 * without one the caller takes the Go path. obj becomes the array's base (may
 * be NULL). mv_import_as is mv_import_fast with the layout given (dense, in
 * order 'C' or 'F') and items of format (a forked child's pickles); mv_import_format
 * reads the items as format (a ctypes type's, python/memview/_cdata.py)
 * instead of the exporter's own. */
PyObject *mv_import_fast(PyObject *obj, Py_buffer *view, int readonly, int flags);
PyObject *mv_import_as(PyObject *obj, Py_buffer *view, int nd, const Py_ssize_t *shape, char order, const char *format,
                       int readonly, int flags);
PyObject *mv_import_format(PyObject *obj, Py_buffer *view, const char *format, int readonly, int flags);

/* ---- ops_host.c: memview's own host work in C, for a forked child ---- */

/* mv_host_assign copies src
 * (strides ss, 0 on broadcast axes) into dst as if through a temporary, writing
 * only the field bytes runs names of each item (mv_meta.runs; NULL: all of it);
 * mv_host_broadcast gives the strides that read a layout as an array of shape
 * dshape (ValueError when it does not broadcast); mv_host_order_strides the
 * strides of a dense copy of a in order 'C', 'F', 'A' or 'K'. Each returns 0,
 * or -1 with an exception. mv_child_import_foreign makes a read-only host array
 * over data (nd, shape, C order, items of format and itemsize) that another
 * library lent (token: released once the array's memory is no longer used);
 * NULL with an exception, the token still the caller's. */
int mv_host_assign(char *dst, const Py_ssize_t *ds, const char *src, const Py_ssize_t *ss, const Py_ssize_t *shape,
                   int nd, Py_ssize_t itemsize, const int64_t *runs);
/* mv_copy_stream copies n bytes from s to d (which do not overlap) with
 * streaming stores, which bypass the cache, on x86-64 (memcpy elsewhere):
 * for copies of mv_stream_min() bytes or more, which glibc's memcpy would
 * stream too were they not cut into chunks for the GIL. */
void mv_copy_stream(char *d, const char *s, size_t n);
Py_ssize_t mv_stream_min(void);

/* mv_host_copy copies every item of shape from s (strides ss, 0 on broadcast
 * axes) to d (strides ds), which must not overlap, writing only the field bytes
 * runs names (NULL: whole items, memview/field_runs.go); no GIL needed. */
void mv_host_copy(char *d, const Py_ssize_t *ds, const char *s, const Py_ssize_t *ss, const Py_ssize_t *shape, int nd,
                  Py_ssize_t itemsize, const int64_t *runs);
/* mv_shape_text writes a shape as NumPy's messages do, "(3,)" or "(0,3,4)", into
 * out (MV_SHAPE_TEXT bytes; a long shape is cut short). */
#define MV_SHAPE_TEXT 256
void mv_shape_text(char *out, int nd, const Py_ssize_t *shape);
int mv_host_broadcast(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, int dnd, const Py_ssize_t *dshape,
                      Py_ssize_t *out);
int mv_host_order_strides(const MVArray *a, char order, Py_ssize_t *strides);
/* mv_view_of is a C-level view of p's memory with layout l (offset from p->buf),
 * sharing p's owner; NULL with an exception. */
PyObject *mv_view_of(MVArray *p, const mv_layout *l);
PyObject *mv_child_import_foreign(PyObject *base, struct mv_foreign *token, void *data, int nd,
                                  const int64_t *shape, Py_ssize_t itemsize, const char *format);

/* ---- ops_go.c ---- */

/* mv_live_array is o as a live array that Go may be handed (a C-level view gets
 * its handle now); mv_host_array o as a live host array for a forked child's
 * paths; NULL with an exception otherwise (what names o). mv_long_work says
 * whether work on a runs without the GIL: MV_NOGIL_MIN bytes or more, or any
 * CUDA memory. */
MVArray *mv_live_array(PyObject *o, const char *what);
MVArray *mv_host_array(PyObject *o, const char *what);
int mv_long_work(const MVArray *a);
/* mv_import_go is memview.from_buffer(obj) through Go's import, which reads a
 * format that misstates its exporter's item size as the exporter meant it; a
 * new array, or NULL with an exception. */
PyObject *mv_import_go(PyObject *obj);
extern PyMethodDef mv_ops_go_functions[];

/* ---- ops_dtype.c: the one cache of what Go says about item types ---- */

/* The questions C asks Go about a dtype name or format (key):
 *   MV_ASK_DTYPE   what the dtype name (or typestr, or format) means: dtype_info;
 *   MV_ASK_FORMAT  what the format means, read as struct reads it: format_info;
 *   MV_ASK_CREATE  the item type of the array mv.empty makes for the dtype;
 *   MV_ASK_IMPORT  the item type an exporter's format imports as, and its alignment;
 *   MV_ASK_DESC    the item's JSON descriptor (format_bridge.go): dtype_desc;
 *   MV_ASK_FIELD   a view of record fields (fields.go; the key is ops_fields.c's):
 *                  its items, the field's offset and the axes a sub-array adds. */
enum { MV_ASK_DTYPE, MV_ASK_FORMAT, MV_ASK_CREATE, MV_ASK_IMPORT, MV_ASK_DESC, MV_ASK_FIELD, MV_NASK };

/* Go's answer: the array's item size, format, dtype name and typestr (the
 * JSON text for MV_ASK_DESC). */
typedef struct {
    Py_ssize_t itemsize;
    int align;        /* MV_ASK_IMPORT: the alignment the data must have; else 1 */
    char *format;     /* PyMem, of at least 16 bytes (zero-padded) */
    char *dtype;      /* PyMem, of at least 16 bytes (zero-padded) */
    char typestr[16];
    int short16;      /* format and dtype fit in 16 bytes with their NULs (mv_desc.short16) */
    const int64_t *runs; /* the items' field bytes (mv_meta.runs): NULL for whole items */
    int normal;          /* format is new memory's spelling of the layout (mv_meta.normal) */
    char *json;       /* MV_ASK_DESC (PyMem) */
    Py_ssize_t offset; /* MV_ASK_FIELD: the field's offset in the item */
    int nsub;          /* MV_ASK_FIELD: axes a sub-array field adds */
    Py_ssize_t *sub;   /* MV_ASK_FIELD: their shape, then their strides (PyMem; NULL when none) */
    PyObject *answer; /* the module function's result, made once */
} mv_item;

/* mv_ask returns Go's answer to question ask about key (n bytes, NUL-terminated),
 * asked once and kept; NULL when Go refuses the key or cannot be asked (a forked
 * child), with an exception only when raise is set. The basic dtypes' answers
 * (mv_install_dtypes, at install) stay for good; another answer stays while
 * mv_ask_gen is unchanged (it changes when a full cache drops the others), and
 * at least until the next mv_ask. */
const mv_item *mv_ask(int ask, const char *key, Py_ssize_t n, int raise);
extern unsigned mv_ask_gen;
/* mv_install_dtypes asks Go about the basic dtypes once, by name and by format:
 * 0, or -1 with an exception when the Go core does not know one. */
int mv_install_dtypes(void);
extern PyMethodDef mv_dtype_functions[];

/* ---- ops_cuda.c ---- */

extern PyMethodDef mv_cuda_functions[];

#endif
