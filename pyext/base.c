/*
 * base.c — what every layer of pyext's C uses: strings handed over by Go,
 * keyword and argument parsing, and memview.cuda.CUDAError's type object.
 */
#include "base.h"

char *
mv_pymem_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *out = PyMem_Malloc(n);
    if (out != NULL)
        memcpy(out, s, n);
    return out;
}


char *
mv_take_string(char *s)
{
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *out = PyMem_Malloc(n);
    if (out != NULL)
        memcpy(out, s, n);
    free(s);
    return out;
}


int
mv_intern(const char *const *names, int n, PyObject **out)
{
    for (int i = 0; i < n; i++) {
        if (out[i] == NULL && (out[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return -1;
    }
    return 0;
}

/* The keyword-name tuples mv_parse_kwargs resolved last, by identity: a caller
 * passes the same tuple on every call (a code object's, or a C consumer's
 * static one). Held, so that the address cannot be reused. */
#define KW_CACHE 4
#define KW_MAX 8
static struct {
    PyObject *const *names;
    PyObject *kwnames;
    int n;
    int index[KW_MAX];
} kw_cache[KW_CACHE];
static int kw_next;

static void
kw_remember(PyObject *const *names, PyObject *kwnames, const int *index, int n)
{
    int k = kw_next++ % KW_CACHE;
    PyObject *old = kw_cache[k].kwnames;
    Py_INCREF(kwnames);
    kw_cache[k].names = names;
    kw_cache[k].kwnames = kwnames;
    kw_cache[k].n = n;
    memcpy(kw_cache[k].index, index, (size_t)n * sizeof(int));
    Py_XDECREF(old);
}

int
mv_parse_kwargs(const char *who, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                PyObject *const *names, int nnames, int npos, PyObject **values)
{
    for (int i = 0; i < nnames; i++)
        values[i] = NULL;
    if (nargs <= npos && kwnames != NULL) {
        for (int c = 0; c < KW_CACHE; c++) {
            if (kw_cache[c].kwnames != kwnames || kw_cache[c].names != names)
                continue;
            for (Py_ssize_t i = 0; i < nargs; i++)
                values[i] = args[i];
            int k;
            for (k = 0; k < kw_cache[c].n && values[kw_cache[c].index[k]] == NULL; k++)
                values[kw_cache[c].index[k]] = args[nargs + k];
            if (k == kw_cache[c].n)
                return 0;
            for (int i = 0; i < nnames; i++) /* given twice: the full parse says so */
                values[i] = NULL;
            break;
        }
    }
    if (nargs > npos) {
        if (npos == 0)
            PyErr_Format(PyExc_TypeError, "%s takes keyword arguments only (%zd positional given)", who, nargs);
        else
            PyErr_Format(PyExc_TypeError, "%s takes at most %d positional argument(s) (%zd given)", who, npos,
                         nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        values[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    int index[KW_MAX];
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k);
        int found = -1;
        for (int i = 0; i < nnames && found < 0; i++)
            if (kw == names[i])
                found = i;
        for (int i = 0; i < nnames && found < 0; i++)
            if (PyUnicode_Compare(kw, names[i]) == 0)
                found = i;
        if (found < 0) {
            if (PyErr_Occurred())
                return -1;
            PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument %R", who, kw);
            return -1;
        }
        if (values[found] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s got multiple values for argument %R", who, kw);
            return -1;
        }
        values[found] = args[nargs + k];
        if (k < KW_MAX)
            index[k] = found;
    }
    if (nkw > 0 && nkw <= KW_MAX)
        kw_remember(names, kwnames, index, (int)nkw);
    return 0;
}


PyObject *mv_cuda_error = NULL;


/* The UTF-8 text of a dtype name or format: a str without NUL characters
 * (which C would cut the name at), else TypeError in NumPy's words. */
const char *
mv_dtype_arg(PyObject *o)
{
    Py_ssize_t n;
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &n) : NULL;
    if (s == NULL) {
        PyErr_Clear(); /* not a str, or lone surrogates */
        PyErr_Format(PyExc_TypeError, "memview: data type %R not understood", o);
        return NULL;
    }
    if ((Py_ssize_t)strlen(s) != n) {
        PyErr_Format(PyExc_TypeError, "memview: data type %R not understood (it contains a NUL character)", o);
        return NULL;
    }
    return s;
}

/* An O& converter: a Python int in [0, 2**64) into *(unsigned long long *)p
 * (PyArg's "K" would silently wrap -1 or 2**64 + 1). */
int
mv_u64_arg(PyObject *o, void *p)
{
    if (!PyLong_Check(o)) {
        PyObject *name = PyType_GetName(Py_TYPE(o));
        PyErr_Format(PyExc_TypeError, "memview: an int is required, not %R", name);
        Py_XDECREF(name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "memview: %R is outside [0, 2**64): not a handle or id", o);
        return 0;
    }
    *(unsigned long long *)p = v;
    return 1;
}

/* Parse a tuple of ints into out[0..n). Returns n or -1. */
int
mv_int64_tuple(PyObject *t, int64_t *out, const char *what)
{
    if (!PyTuple_Check(t)) {
        PyErr_Format(PyExc_TypeError, "memview: %s must be a tuple of ints", what);
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(t);
    if (n > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: %s has %zd dimensions; at most %d are allowed",
                     what, n, MV_MAXDIM);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GetItem(t, i);
        if (PyBool_Check(x)) {
            PyErr_Format(PyExc_TypeError, "memview: %s entries must be integers, not bool", what);
            return -1;
        }
        PyObject *ix = PyNumber_Index(x); /* ints and anything with __index__ */
        if (ix == NULL)
            return -1;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(ix, &overflow);
        Py_DECREF(ix);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow) {
            PyErr_Format(PyExc_ValueError, "memview: maximum allowed dimension exceeded: %s[%zd] = %R "
                         "does not fit in 64 bits", what, i, x);
            return -1;
        }
        out[i] = (int64_t)v;
    }
    return (int)n;
}
