/*
 * gopy_fast.h — the one header the call entries generated for bound Go
 * packages include (gopyfast.py writes them into the build; gopy_fast.c
 * defines what they call). It is the whole boundary between the generated C
 * and memview's: nothing else of pyext is reachable from it.
 *
 * A generated entry, for a function or method whose parameters and results
 * memview converts: refuse in a forked child (mv_fast_forked) before any Go;
 * bind the arguments to the Go parameter names (mv_fast_bind); read a
 * method's receiver by its gopy handle (mv_fast_handle; Go checks its type);
 * take each []T from its argument's buffer (mv_fast_slice), each
 * *memview.Array as a Py_buffer (mv_fast_array) and each gopy object by its
 * handle (mv_fast_handle); convert the scalars with gopy.c's mv_go_*_arg;
 * release the GIL; call its Go shim once; take the GIL back; raise the
 * shim's failure (mv_fast_raise) or convert the results, keeping the memory
 * lent alive with the Go value returned or the receiver (mv_fast_keep).
 * Whatever the entry does not take as it is (an argument of another kind, a
 * missing or extra argument, goRun=True, a receiver without a handle) goes,
 * unchanged, to the function's or method's gopy path (mv_fast_fallback,
 * mv_fast_method_fallback), which raises today's errors for it.
 */
#ifndef MEMVIEW_GOPY_FAST_H
#define MEMVIEW_GOPY_FAST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* What a Go shim reports: the exception class to raise (borrowed; NULL when
 * the call succeeded) and its message (malloc'd by Go; the entry frees it),
 * and, per *memview.Array parameter (bit i for the i-th), whether Go took its
 * Py_buffer (and so gives it back). fallback: the shim did not call the Go
 * function (Go could not take an argument as it is): the entry calls the gopy
 * path instead. */
typedef struct {
    void *exception;
    char *message;
    char *fields; /* NULL, or the exception's attributes as a JSON object (malloc'd by Go) */
    uint32_t taken;
    int fallback;
} mv_fast_failure;

/* The memory a call lends a *memview.Array parameter: the argument's
 * Py_buffer, and the state of the lending (gopyrt.Lend: 0 during the call, 1
 * given back during it, 2 the call is over), which Go keeps here, in C
 * memory, so that it needs no allocation of its own. */
typedef struct {
    Py_buffer view;
    int32_t state;
} mv_fast_lent;

/* One generated entry, by the bound function's Python name ("pkg.Func", or
 * "pkg.Type.Method" for a method); for one returning a Go value Python gets
 * as gopy's object, the name of gopy's class of it ("Slice_float64") and
 * where the entry finds that class; for a method, where the entry finds its
 * gopy path (gopy's method, which a function's entry has as its __self__);
 * for one that keeps the memory it was lent alive (with the Go value it
 * returns, or the receiver), where it finds its Python name, the key it
 * keeps it under. go_fast and go_fast_method set them. */
typedef struct {
    const char *qualname;
    PyMethodDef def;
    const char *result_class_name;
    PyObject **result_class;
    PyObject **method_path;
    PyObject **keep_key;
} mv_fast_def;

extern int mv_in_child; /* go_fork.c: set in a forked child, where no Go may run */

PyObject *mv_fast_forked(const char *cname);
int mv_fast_bind(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names, int n,
                 PyObject **out);
PyObject *mv_fast_fallback(PyObject *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *mv_fast_method_fallback(PyObject *fn, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames);
/* How mv_fast_slice takes a buffer for a []T parameter (gopysig's read-only
 * analysis decides, per parameter, which of the RO_ flags the entry passes):
 * ANY_FORMAT, for a []byte: any C-contiguous buffer, as its bytes (as hashlib
 * takes them); RO_TAKE: Go provably only reads it, and a read-only buffer is
 * taken as it is; RO_COPY: the analysis could not tell, and a read-only
 * buffer is copied for the call. With neither, a read-only buffer is left to
 * the gopy path, which refuses it (Go stores into it). */
/* The GIL rule (gopyfast.keeps_gil): an entry of a function proven unable to
 * block keeps the GIL for a call whose buffers total under this many bytes
 * (CPython's hashlib releases it from HASHLIB_GIL_MINSIZE, 2048, on). */
#define MV_FAST_GIL_BYTES 2048

#define MV_FAST_ANY_FORMAT 1
#define MV_FAST_RO_TAKE 2
#define MV_FAST_RO_COPY 4

int mv_fast_slice(PyObject *o, const char *formats, Py_ssize_t itemsize, int flags, Py_buffer *view, PyObject **copy);
int mv_fast_array(PyObject *o, mv_fast_lent **lent);
int mv_fast_handle(PyObject *o, int64_t *h);
void mv_fast_release_array(mv_fast_lent *lent);
void mv_fast_give_back(void *lent);
PyObject *mv_fast_raise(mv_fast_failure *f);
PyObject *mv_fast_named(PyObject *cls, PyObject *v);
/* mv_raise_go_error raises cls(msg), with the attributes of fields (a JSON
 * object, or NULL) set on the instance; gopyrt calls it on gopy's path. */
void mv_raise_go_error(PyObject *cls, const char *msg, const char *fields);
PyObject *mv_fast_gopy_result(PyObject *cls, int64_t handle);

/* A []T argument of a call, for mv_fast_meta_result: the object whose memory
 * Go was lent (the argument, or the copy made of it), that memory (buf NULL
 * for none: None, or a gopy object) and whether it was read-only. */
typedef struct {
    PyObject *obj;
    const char *buf;
    Py_ssize_t len;
    int readonly;
} mv_fast_input;

/* mv_fast_meta_result is the memview array of the Go slice result whose
 * array a shim made (meta: an mv_meta, gopyrt.SliceResult), which it takes
 * over: a view of the argument whose memory the slice lies in (Go's
 * Encode(dst, src) returns dst[:n]), holding an export of it, else of Go's
 * memory. */
PyObject *mv_fast_meta_result(void *meta, const mv_fast_input *in, int n);
int mv_fast_keep(PyObject *owner, PyObject *key, PyObject *const *lent, int n);

int mv_go_int_arg(PyObject *o, int bits, int is_signed, const char *func, const char *arg, void *out);
int mv_go_float_arg(PyObject *o, int bits, const char *func, const char *arg, void *out);
int mv_go_bool_arg(PyObject *o, const char *func, const char *arg, void *out);
int mv_go_str_arg(PyObject *o, const char *func, const char *arg, char **out);

#endif
