/*
 * gopy_fast.h — the one header the call entries generated for bound Go
 * packages include (gopyfast.py writes them into the build; gopy_fast.c
 * defines what they call). It is the whole boundary between the generated C
 * and memview's: nothing else of pyext is reachable from it.
 *
 * A generated entry, for a function whose parameters and results memview
 * converts: refuse in a forked child (mv_fast_forked) before any Go; bind the
 * arguments to the Go parameter names (mv_fast_bind); take each []T from its
 * argument's buffer (mv_fast_slice) and each *memview.Array as a Py_buffer
 * (mv_fast_array) and each gopy object by its handle (mv_fast_handle); convert the scalars with gopy.c's mv_go_*_arg; release the
 * GIL; call its Go shim once; take the GIL back; raise the shim's failure
 * (mv_fast_raise) or convert the results. Whatever the entry does not take
 * as it is (an argument of another kind, a missing or extra argument,
 * goRun=True) goes, unchanged, to the function's gopy path
 * (mv_fast_fallback), which raises today's errors for it.
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

/* One generated entry, by the bound function's Python name ("pkg.Func"); for
 * a function returning a Go slice, the name of gopy's class of it
 * ("Slice_float64") and where the entry finds that class (set by go_fast). */
typedef struct {
    const char *qualname;
    PyMethodDef def;
    const char *result_class_name;
    PyObject **result_class;
} mv_fast_def;

extern int mv_in_child; /* fork.c: set in a forked child, where no Go may run */

PyObject *mv_fast_forked(const char *cname);
int mv_fast_bind(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names, int n,
                 PyObject **out);
PyObject *mv_fast_fallback(PyObject *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
int mv_fast_slice(PyObject *o, const char *formats, Py_ssize_t itemsize, Py_buffer *view);
int mv_fast_array(PyObject *o, mv_fast_lent **lent);
int mv_fast_handle(PyObject *o, int64_t *h);
void mv_fast_release_array(mv_fast_lent *lent);
void mv_fast_give_back(void *lent);
PyObject *mv_fast_raise(mv_fast_failure *f);
PyObject *mv_fast_gopy_result(PyObject *cls, int64_t handle);

int mv_go_int_arg(PyObject *o, int bits, int is_signed, const char *func, const char *arg, void *out);
int mv_go_float_arg(PyObject *o, int bits, const char *func, const char *arg, void *out);
int mv_go_bool_arg(PyObject *o, const char *func, const char *arg, void *out);
int mv_go_str_arg(PyObject *o, const char *func, const char *arg, char **out);

#endif
