/*
 * ops_dtype.c — dtype and format descriptions (dtype_info, format_info,
 * dtype_desc), asked of Go once each and remembered; the basic dtypes are
 * asked at install (mv_install_dtypes), so a forked child knows them too.
 */
#include "ops.h"

static PyObject *
dtype_info(PyObject *arg, int as_format)
{
    const char *name = mv_dtype_arg(arg);
    if (name == NULL)
        return NULL;
    mv_meta m; /* only itemsize, dtype, typestr and format are filled */
    mv_err e;
    if (mv_go_dtype_info((char *)name, as_format, &m, &e) != 0)
        return mv_raise(&e);
    const char *format = m.long_format ? m.long_format : m.format;
    PyObject *r = Py_BuildValue("(sLss)", m.long_dtype ? m.long_dtype : m.dtype, (long long)m.itemsize,
                                m.typestr, format);
    free(m.long_format);
    free(m.long_dtype);
    return r;
}


/* dtype_desc(name) -> str: the JSON item descriptor of a dtype (see format_bridge.go) */
static PyObject *
dtype_desc(PyObject *arg, int unused)
{
    (void)unused;
    const char *name = mv_dtype_arg(arg);
    if (name == NULL)
        return NULL;
    char *out = NULL;
    mv_err e;
    if (mv_go_dtype_desc((char *)name, &out, &e) != 0)
        return mv_raise(&e);
    PyObject *r = PyUnicode_FromString(out);
    free(out);
    return r;
}

/* What Go answered about dtypes (dtype_info, format_info, dtype_desc), by
 * (question, argument): asked once, and known in a forked child, which cannot
 * ask Go (go_fork.c). The basic dtypes and formats are asked at install
 * (mv_install_dtypes). */
static PyObject *dtype_memo;
#define MEMO_MAX 4096

static PyObject *
memoized(int which, PyObject *arg, PyObject *(*ask)(PyObject *, int), int as_format)
{
    if (!PyUnicode_Check(arg))
        return ask(arg, as_format); /* the TypeError, raised before Go */
    if (dtype_memo == NULL && (dtype_memo = PyDict_New()) == NULL)
        return NULL;
    PyObject *key = Py_BuildValue("(iO)", which, arg);
    if (key == NULL)
        return NULL;
    PyObject *r = PyUnicode_CheckExact(arg) ? PyDict_GetItemWithError(dtype_memo, key) : NULL;
    if (r != NULL || PyErr_Occurred()) {
        Py_DECREF(key);
        return Py_XNewRef(r);
    }
    if (!mv_go_usable()) {
        Py_DECREF(key);
        char what[200];
        PyOS_snprintf(what, sizeof what, "reading the dtype %.120s, which this process's parent never read,",
                      PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, NULL) : "(not a str)");
        PyErr_Clear();
        return mv_raise_forked(what);
    }
    r = ask(arg, as_format);
    if (r != NULL && PyUnicode_CheckExact(arg) && PyDict_Size(dtype_memo) < MEMO_MAX &&
        PyDict_SetItem(dtype_memo, key, r) < 0)
        Py_CLEAR(r);
    Py_DECREF(key);
    return r;
}

/* dtype_info(name) -> (name, itemsize, typestr, format) of a dtype name, typestr or format */
static PyObject *
core_dtype_info(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return memoized(0, arg, dtype_info, 0);
}

/* format_info(format) -> the same for a PEP 3118 format (an exporter's), read
 * as struct reads it ("<l" is 4 bytes) */
static PyObject *
core_format_info(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return memoized(1, arg, dtype_info, 1);
}

/* dtype_desc(name) -> str: the JSON item descriptor of a dtype (see format_bridge.go) */
static PyObject *
core_dtype_desc(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return memoized(2, arg, dtype_desc, 0);
}

/* mv_install_dtypes asks Go about the basic dtypes once, by name and by format. */
int
mv_install_dtypes(void)
{
    static const char *const names[] = {
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128",
        "?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "Zf", "Zd",
        "<i", "<l", "<q", "<d", "<f", "<h", "<b", "<B", "<H", "<I", "<L", "<Q", "<?", "<e",
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        PyObject *n = PyUnicode_FromString(names[k]);
        if (n == NULL)
            return -1;
        for (int which = 0; which < 3; which++) {
            PyObject *r = which == 0 ? memoized(0, n, dtype_info, 0)
                        : which == 1 ? memoized(1, n, dtype_info, 1) : memoized(2, n, dtype_desc, 0);
            if (r == NULL)
                PyErr_Clear(); /* a spelling Go does not take in that role */
            Py_XDECREF(r);
        }
        Py_DECREF(n);
    }
    return 0;
}

PyMethodDef mv_dtype_functions[] = {
    {"dtype_info", core_dtype_info, METH_O, "dtype_info(name) -> (name, itemsize, typestr, format)"},
    {"format_info", core_format_info, METH_O, "format_info(format) -> (name, itemsize, typestr, format)"},
    {"dtype_desc", core_dtype_desc, METH_O, "dtype_desc(name) -> JSON item descriptor"},
    {NULL},
};
