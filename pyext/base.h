/*
 * base.h — the bottom layer of pyext's C: Python's headers, the data that
 * crosses to Go (bridge.h), and the small helpers every layer uses. Nothing
 * here knows arrays or calls Go.
 *
 * All of pyext's C is written to the limited API of Python 3.11
 * (Py_LIMITED_API is set by build.py), so one abi3 extension serves 3.11 and
 * newer.
 */
#ifndef MEMVIEW_BASE_H
#define MEMVIEW_BASE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bridge.h"

/* Copies and fills of MV_NOGIL_MIN bytes or more run without the GIL: below it,
 * giving the GIL up and taking it back costs more than the work. */
#define MV_NOGIL_MIN (1 << 16)
/* ... and in chunks of at most MV_CHUNK bytes written, taking the GIL back
 * between them, so that no other thread waits long (8 MiB: a few ms even at a
 * strided copy's 1-2 GB/s, well inside 20 ms). */
#define MV_CHUNK (8 << 20)

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

/* memview._core.CUDAError (memview.cuda.CUDAError), made by module.c. */
extern PyObject *mv_cuda_error;

/* mv_take_string returns a PyMem copy of s, a string malloc'd by Go, and frees
 * s; NULL if s is NULL or memory ran out. */
char *mv_take_string(char *s);

/* mv_pymem_strdup returns a PyMem copy of s, or NULL when memory ran out (no
 * exception set). */
char *mv_pymem_strdup(const char *s);

/* Keyword parsing for METH_FASTCALL|METH_KEYWORDS methods: names[i] (interned
 * str, see mv_intern) is matched against kwnames; values[i] is set (borrowed)
 * or left NULL. Positional arguments fill values in order, up to npos. -1 with
 * TypeError on anything else. */
int mv_parse_kwargs(const char *who, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    PyObject *const *names, int nnames, int npos, PyObject **values);

/* mv_intern fills out[i] with interned str objects of names[i] (kept for the
 * life of the process). -1 on failure. */
int mv_intern(const char *const *names, int n, PyObject **out);

/* mv_dtype_arg is the UTF-8 text of a dtype name or format: a str without NUL
 * characters, else NULL with TypeError in NumPy's words. */
const char *mv_dtype_arg(PyObject *o);

/* mv_u64_arg is an O& converter: a Python int in [0, 2**64) into
 * *(unsigned long long *)p (PyArg's "K" would silently wrap -1 or 2**64 + 1). */
int mv_u64_arg(PyObject *o, void *p);

/* mv_int64_tuple parses a tuple of at most MV_MAXDIM ints (what names it in
 * errors) into out; the count, or -1 with an exception. */
int mv_int64_tuple(PyObject *t, int64_t *out, const char *what);

#endif
