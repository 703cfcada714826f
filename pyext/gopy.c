/*
 * gopy.c — memview._core functions for Go packages bound by gopy and built
 * together with memview (gopy_bridge.go has the rules). The facade
 * (memview/_gobind.py) calls them with the integer handles gopy's Python
 * objects carry. And mv_go_int_arg, mv_go_float_arg, mv_go_bool_arg and
 * mv_go_str_arg, which the C pybindgen writes for the bound packages calls for
 * every integer, float, bool and string argument (gopyext.py).
 */
#include <limits.h>
#include <string.h>
#include "gopy.h"

/* defined below, with the other conversions of arguments */
int mv_go_int_arg(PyObject *o, int bits, int is_signed, const char *func, const char *arg, void *out);

static MVArray *
array_arg(PyObject *o)
{
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Array is required");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    /* every caller hands the array to Go: a C-level view gets its handle now */
    return mv_array_handle(a) == 0 ? NULL : a;
}

/* from_gopy(handle: int, writable: int) -> Array over the memory of the Go value
 * behind a gopy handle; writable: -1 as Go says, 0 read-only, 1 writable required */
static PyObject *
core_from_gopy(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *handle;
    int64_t h;
    int writable;
    if (!PyArg_ParseTuple(args, "Oi", &handle, &writable) ||
        mv_go_int_arg(handle, 64, 1, "memview.from_go", "handle", &h) < 0) /* gopy's handles are int64 */
        return NULL;
    mv_meta m;
    mv_err e;
    if (mv_go_from_gopy(h, writable, &m, &e) != 0)
        return mv_raise(&e);
    return mv_new_array(&m, NULL);
}

/* lend_slice(a, elem: str) -> int: a gopy handle to a Go []elem over a's memory
 * (contiguous, writable, of the matching dtype), for one call; give it back
 * with unlend */
static PyObject *
core_lend_slice(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *o;
    const char *elem;
    if (!PyArg_ParseTuple(args, "Os", &o, &elem))
        return NULL;
    MVArray *a = array_arg(o);
    if (a == NULL)
        return NULL;
    int64_t h = 0;
    mv_err e;
    int rc;
    /* CUDA memory first waits for the device's pending work on it */
    NOGIL(a->device_kind != MV_DEV_CPU, rc = mv_go_lend_slice(mv_go_handle(a), (char *)elem, &h, &e));
    /* the lent Go array is Go's own view: a handle made for a C-level view
     * here is not kept (the call leaves handles as it found them) */
    mv_undo_fresh_handles();
    if (rc != 0)
        return mv_raise(&e);
    return PyLong_FromLongLong(h);
}

/* lend_array(a) -> int: a gopy handle to a new Go *memview.Array viewing a, for
 * one call; give it back with unlend */
static PyObject *
core_lend_array(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    MVArray *a = array_arg(o);
    if (a == NULL)
        return NULL;
    int64_t h = 0;
    mv_err e;
    int rc;
    /* CUDA memory the host reaches first waits for the device's pending work on it */
    NOGIL(a->device_kind != MV_DEV_CPU, rc = mv_go_lend_array(mv_go_handle(a), &h, &e));
    /* the lent Go array is Go's own view: a handle made for a C-level view
     * here is not kept (the call leaves handles as it found them) */
    mv_undo_fresh_handles();
    if (rc != 0)
        return mv_raise(&e);
    return PyLong_FromLongLong(h);
}

/* lend_buffer(obj, kind: str) -> int: a gopy handle to obj's memory (any PEP 3118
 * exporter) for one call, as a Go *memview.Array (kind "array") or []kind, without
 * a Python array object in between: Go holds the Py_buffer until unlend, or for
 * as long as Go keeps a view of the array. TypeError if obj has no buffer. */
static PyObject *
core_lend_buffer(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *obj;
    const char *kind;
    if (!PyArg_ParseTuple(args, "Os", &obj, &kind))
        return NULL;
    if (!PyObject_CheckBuffer(obj)) {
        PyObject *name = PyType_GetName(Py_TYPE(obj));
        PyErr_Format(PyExc_TypeError, "memview: an array or an object with the buffer protocol is "
                     "required, not %R", name);
        Py_XDECREF(name);
        return NULL;
    }
    Py_buffer *view = PyMem_Calloc(1, sizeof(Py_buffer));
    if (view == NULL)
        return PyErr_NoMemory();
    if (PyObject_GetBuffer(obj, view, PyBUF_FULL_RO) < 0) {
        PyMem_Free(view);
        return NULL;
    }
    for (int i = 0; view->suboffsets != NULL && i < view->ndim; i++) {
        if (view->suboffsets[i] >= 0) {
            PyBuffer_Release(view);
            PyMem_Free(view);
            PyErr_SetString(PyExc_ValueError, "memview: PIL-style buffers (suboffsets) are not supported");
            return NULL;
        }
    }
    /* As from_buffer: a buffer with no shape is read as bytes. */
    int64_t shape1 = view->itemsize ? view->len / view->itemsize : 0;
    const int64_t *shape = (const int64_t *)view->shape;
    int ndim = view->ndim;
    if (ndim > 0 && shape == NULL) {
        shape = &shape1;
        ndim = 1;
    }
    int64_t h = 0;
    int taken = 0;
    mv_err e;
    if (mv_go_lend_buffer(view->buf, ndim, (int64_t *)shape, (int64_t *)view->strides, view->itemsize,
                         view->format ? view->format : "B", view->readonly, view, (char *)kind, &h,
                         &taken, &e) != 0) {
        if (!taken) {
            PyBuffer_Release(view);
            PyMem_Free(view);
        }
        return mv_raise(&e);
    }
    return PyLong_FromLongLong(h);
}

/* unlend(handle): the call is over; drop what lend_slice, lend_array or lend_buffer made */
static PyObject *
core_unlend(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    long long h = PyLong_AsLongLong(arg);
    if (h == -1 && PyErr_Occurred())
        return NULL;
    mv_err e;
    if (mv_go_unlend(h, &e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* The text of Python integer n for a message, as memview's Python side writes
 * it (_dtypes._short): in full, or its first 12 characters and its number of digits. */
static PyObject *
short_int(PyObject *n)
{
    PyObject *s = PyObject_Str(n);
    if (s == NULL) { /* more digits than Python prints (sys.set_int_max_str_digits) */
        PyErr_Clear();
        return PyUnicode_FromString("of too many digits to print");
    }
    Py_ssize_t len = PyUnicode_GetLength(s);
    if (len <= 24)
        return s;
    Py_ssize_t digits = len - (PyUnicode_ReadChar(s, 0) == '-');
    PyObject *head = PyUnicode_Substring(s, 0, 12);
    Py_DECREF(s);
    if (head == NULL)
        return NULL;
    PyObject *out = PyUnicode_FromFormat("%U... (%zd digits)", head, digits);
    Py_DECREF(head);
    return out;
}

/* mv_go_int_arg(o, bits, is_signed, func, arg, out): the value of Python object o
 * for an integer parameter arg of the bound Go function func, stored at out as
 * the C type gopy passes (int8_t ... uint64_t: bits 8, 16, 32 or 64, signed or
 * not). Every integer parameter of every bound Go function, method and gopy
 * helper is converted here: gopyext.py has the C that pybindgen writes call it
 * instead of PyArg_ParseTuple's unchecked codes ("b", "B", "H", "I", "K" and the
 * "> 0xff" checks that let -1 through as 255). An object without __index__, or
 * a bool, is a TypeError; a value outside the Go type's range is an
 * OverflowError in NumPy's words ("Python integer 300 out of bounds for uint8"),
 * and nothing is stored. Returns 0, or -1 with the exception set. */
int
mv_go_int_arg(PyObject *o, int bits, int is_signed, const char *func, const char *arg, void *out)
{
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyObject *name = PyType_GetName(Py_TYPE(o));
        if (name != NULL)
            PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be an integer, not %R", func, arg, name);
        Py_XDECREF(name);
        return -1;
    }
    PyObject *n = PyNumber_Index(o);
    if (n == NULL)
        return -1;
    int overflow = 0, ok;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    unsigned long long u = (unsigned long long)v;
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(n);
        return -1;
    }
    if (is_signed) {
        long long lo = bits == 64 ? LLONG_MIN : -(1LL << (bits - 1));
        long long hi = bits == 64 ? LLONG_MAX : (1LL << (bits - 1)) - 1;
        ok = !overflow && v >= lo && v <= hi;
    } else if (bits == 64 && overflow > 0) { /* above 2**63 - 1: within uint64? */
        u = PyLong_AsUnsignedLongLong(n);
        ok = !(u == (unsigned long long)-1 && PyErr_Occurred());
        if (!ok)
            PyErr_Clear();
    } else {
        ok = !overflow && v >= 0 && (bits == 64 || v <= (1LL << bits) - 1);
    }
    if (!ok) {
        PyObject *text = short_int(n);
        if (text != NULL)
            PyErr_Format(PyExc_OverflowError, "%s() argument '%s': Python integer %U out of bounds for %sint%d",
                         func, arg, text, is_signed ? "" : "u", bits);
        Py_XDECREF(text);
        Py_DECREF(n);
        return -1;
    }
    Py_DECREF(n);
    switch (bits * (is_signed ? 1 : -1)) {
    case 8: *(int8_t *)out = (int8_t)v; break;
    case 16: *(int16_t *)out = (int16_t)v; break;
    case 32: *(int32_t *)out = (int32_t)v; break;
    case 64: *(int64_t *)out = (int64_t)v; break;
    case -8: *(uint8_t *)out = (uint8_t)u; break;
    case -16: *(uint16_t *)out = (uint16_t)u; break;
    case -32: *(uint32_t *)out = (uint32_t)u; break;
    case -64: *(uint64_t *)out = (uint64_t)u; break;
    default:
        PyErr_Format(PyExc_SystemError, "memview: no Go integer type of %d bits", bits);
        return -1;
    }
    return 0;
}

static PyMethodDef gopy_methods[] = {
    {"from_gopy", core_from_gopy, METH_VARARGS, "from_gopy(handle, writable) -> array over a Go value's memory"},
    {"lend_slice", core_lend_slice, METH_VARARGS, "lend_slice(a, elem) -> gopy handle of a Go []elem over a"},
    {"lend_array", core_lend_array, METH_O, "lend_array(a) -> gopy handle of a Go *memview.Array viewing a"},
    {"lend_buffer", core_lend_buffer, METH_VARARGS, "lend_buffer(obj, kind) -> gopy handle of obj's memory as kind"},
    {"unlend", core_unlend, METH_O, "unlend(handle): drop a handle a lend_* function made"},
    {NULL},
};

int mv_add_gopy_fast_functions(PyObject *mod); /* gopy_fast.c: the generated call entries */

int
mv_add_gopy_functions(PyObject *mod)
{
    return PyModule_AddFunctions(mod, gopy_methods) < 0 ? -1 : mv_add_gopy_fast_functions(mod);
}

/* type_error raises TypeError: func() argument 'arg' must be <want>, not '<type>'. */
static int
type_error(PyObject *o, const char *func, const char *arg, const char *want)
{
    PyObject *name = PyType_GetName(Py_TYPE(o));
    if (name != NULL)
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be %s, not %R", func, arg, want, name);
    Py_XDECREF(name);
    return -1;
}

/* mv_go_float_arg(o, bits, func, arg, out): the value of Python object o for a
 * float64 (bits 64, stored as double) or float32 (bits 32, stored as float)
 * parameter arg of the bound Go function func. It takes what float() takes (a
 * float, an int, anything with __float__ or __index__); another object is a
 * TypeError naming func and arg, an int too large for a double an
 * OverflowError saying so. A float32 takes the double rounded to float32: out
 * of its range that is an infinity, as a memview or NumPy float32 array stores
 * it. Returns 0, or -1 with the exception set and nothing stored. */
int
mv_go_float_arg(PyObject *o, int bits, const char *func, const char *arg, void *out)
{
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            return type_error(o, func, arg, "a real number");
        }
        if (PyErr_ExceptionMatches(PyExc_OverflowError) && PyLong_Check(o)) {
            PyErr_Clear();
            PyObject *text = short_int(o);
            if (text != NULL)
                PyErr_Format(PyExc_OverflowError, "%s() argument '%s': Python integer %U is too large to convert "
                             "to float%d", func, arg, text, bits);
            Py_XDECREF(text);
        }
        return -1;
    }
    if (bits == 32)
        *(float *)out = (float)d;
    else
        *(double *)out = d;
    return 0;
}

/* mv_go_bool_arg(o, func, arg, out): the truth of Python object o for a bool
 * parameter, as Python's bool() gives it, stored as the one byte gopy's C
 * declares bool as (uint8_t); an error raised by the truth test (a NumPy array
 * of several elements, say) is raised, and nothing is stored. Returns 0 or -1. */
int
mv_go_bool_arg(PyObject *o, const char *func, const char *arg, void *out)
{
    (void)func;
    (void)arg;
    int t = PyObject_IsTrue(o);
    if (t < 0)
        return -1;
    *(uint8_t *)out = t != 0;
    return 0;
}

/* mv_go_str_arg(o, func, arg, out): the UTF-8 text of str o for a string
 * parameter (owned by o, which the call holds). Another type is a TypeError; a
 * str with a NUL character a ValueError (gopy hands Go strings over as C
 * strings, which end at the first NUL); text that is not valid Unicode (lone
 * surrogates) the UnicodeEncodeError of encoding it. Returns 0 or -1. */
int
mv_go_str_arg(PyObject *o, const char *func, const char *arg, char **out)
{
    if (!PyUnicode_Check(o))
        return type_error(o, func, arg, "str");
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == NULL)
        return -1;
    if ((size_t)n != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "%s() argument '%s' contains a NUL character, which a Go string "
                     "argument cannot carry", func, arg);
        return -1;
    }
    *out = (char *)s;
    return 0;
}
