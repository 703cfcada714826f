/*
 * anchor.c — the floor bench_calls.py measures bound calls against: each
 * floor_* entry is METH_FASTCALL, converts its arguments with the least
 * checking that is still safe, and makes one cgo call into Go (with the GIL
 * released, as the bound calls do; the *_held twins keep it, so that the
 * benchmark can report the release's cost). The plain_* entries do the same
 * work in C alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "_cgo_export.h"

static PyObject *
floor_nop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyThreadState *ts = PyEval_SaveThread();
    cbNop();
    PyEval_RestoreThread(ts);
    Py_RETURN_NONE;
}

static PyObject *
floor_nop_held(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    cbNop();
    Py_RETURN_NONE;
}

static int
two_ints(PyObject *const *args, Py_ssize_t nargs, long long *a, long long *b)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "two arguments are needed");
        return -1;
    }
    *a = PyLong_AsLongLong(args[0]);
    *b = PyLong_AsLongLong(args[1]);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *
floor_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long long a, b, r;
    if (two_ints(args, nargs, &a, &b) < 0)
        return NULL;
    PyThreadState *ts = PyEval_SaveThread();
    r = cbAdd(a, b);
    PyEval_RestoreThread(ts);
    return PyLong_FromLongLong(r);
}

static PyObject *
floor_add_held(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long long a, b;
    if (two_ints(args, nargs, &a, &b) < 0)
        return NULL;
    return PyLong_FromLongLong(cbAdd(a, b));
}

static PyObject *
plain_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long long a, b;
    if (two_ints(args, nargs, &a, &b) < 0)
        return NULL;
    return PyLong_FromLongLong(a + b);
}

static PyObject *
plain_nop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_RETURN_NONE;
}

/* vector: a writable contiguous float64 buffer (flags), or NULL with an exception */
static int
vector(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, int flags, Py_buffer *v)
{
    if (nargs != want) {
        PyErr_SetString(PyExc_TypeError, "wrong number of arguments");
        return -1;
    }
    if (PyObject_GetBuffer(args[0], v, flags) < 0)
        return -1;
    if (v->itemsize != 8 || v->ndim != 1 || (v->format && strcmp(v->format, "d") != 0)) {
        PyBuffer_Release(v);
        PyErr_SetString(PyExc_TypeError, "a 1-d float64 array is needed");
        return -1;
    }
    return 0;
}

static PyObject *
floor_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v;
    if (vector(args, nargs, 1, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS, &v) < 0)
        return NULL;
    PyThreadState *ts = PyEval_SaveThread();
    double s = cbSum(v.buf, v.shape[0]);
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&v);
    return PyFloat_FromDouble(s);
}

static PyObject *
plain_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v;
    if (vector(args, nargs, 1, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS, &v) < 0)
        return NULL;
    const double *x = v.buf;
    double s = 0;
    for (Py_ssize_t i = 0; i < v.shape[0]; i++)
        s += x[i];
    PyBuffer_Release(&v);
    return PyFloat_FromDouble(s);
}

static PyObject *
floor_scale(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v;
    if (vector(args, nargs, 2, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_STRIDES, &v) < 0)
        return NULL;
    double f = PyFloat_AsDouble(args[1]);
    if (f == -1.0 && PyErr_Occurred()) {
        PyBuffer_Release(&v);
        return NULL;
    }
    PyThreadState *ts = PyEval_SaveThread();
    cbScale(v.buf, v.shape[0], v.strides[0], f);
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&v);
    Py_RETURN_NONE;
}

static PyObject *
plain_scale(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v;
    if (vector(args, nargs, 2, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_STRIDES, &v) < 0)
        return NULL;
    double f = PyFloat_AsDouble(args[1]);
    if (f == -1.0 && PyErr_Occurred()) {
        PyBuffer_Release(&v);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < v.shape[0]; i++)
        *(double *)((char *)v.buf + i * v.strides[0]) *= f;
    PyBuffer_Release(&v);
    Py_RETURN_NONE;
}

/* The method floors: a receiver gopy holds by handle (its int attribute
 * "handle"), read as a hand-written method would, and found in Go by one
 * cgo call (anchor.go: gopy's table, a checked type assertion). */
static int
receiver(PyObject *self, int64_t *h)
{
    static PyObject *name;
    if (name == NULL && (name = PyUnicode_InternFromString("handle")) == NULL)
        return -1;
    PyObject *v = PyObject_GetAttr(self, name);
    if (v == NULL)
        return -1;
    *h = PyLong_AsLongLong(v);
    Py_DECREF(v);
    return *h == -1 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *
gone(void)
{
    PyErr_SetString(PyExc_ValueError, "the Go value of this receiver is gone");
    return NULL;
}

static PyObject *
floor_method_nop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t h;
    if (receiver(self, &h) < 0)
        return NULL;
    PyThreadState *ts = PyEval_SaveThread();
    int rc = cbAccNop(h);
    PyEval_RestoreThread(ts);
    if (rc < 0)
        return gone();
    Py_RETURN_NONE;
}

static PyObject *
floor_method_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t h;
    Py_buffer v;
    double s;
    if (receiver(self, &h) < 0 ||
        vector(args, nargs, 1, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS, &v) < 0)
        return NULL;
    PyThreadState *ts = PyEval_SaveThread();
    int rc = cbAccSum(h, v.buf, v.shape[0], &s);
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&v);
    if (rc < 0)
        return gone();
    return PyFloat_FromDouble(s);
}

static PyMethodDef floor_methods[] = {
    {"floor_nop", (PyCFunction)(void (*)(void))floor_method_nop, METH_FASTCALL, NULL},
    {"floor_sum", (PyCFunction)(void (*)(void))floor_method_sum, METH_FASTCALL, NULL},
    {NULL},
};

/* install_method_floors(cls): the method floors as methods floor_nop and
 * floor_sum of cls (gopy's class of callbench.Acc), descriptors of cls itself */
static PyObject *
install_method_floors(PyObject *mod, PyObject *cls)
{
    if (!PyType_Check(cls))
        return PyErr_Format(PyExc_TypeError, "a class is needed");
    for (PyMethodDef *d = floor_methods; d->ml_name != NULL; d++) {
        PyObject *descr = PyDescr_NewMethod((PyTypeObject *)cls, d);
        int rc = descr ? PyObject_SetAttrString(cls, d->ml_name, descr) : -1;
        Py_XDECREF(descr);
        if (rc < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

#define FAST(name) {#name, (PyCFunction)(void (*)(void))name, METH_FASTCALL, NULL}
static PyMethodDef anchors[] = {
    FAST(floor_nop), FAST(floor_nop_held), FAST(plain_nop),
    FAST(floor_add), FAST(floor_add_held), FAST(plain_add),
    FAST(floor_sum), FAST(plain_sum),
    FAST(floor_scale), FAST(plain_scale),
    {"install_method_floors", install_method_floors, METH_O, NULL},
    {NULL},
};

/* cb_install puts the module callbench_anchors into sys.modules (called from
 * Go, without the GIL). Returns 0 or -1. */
int
cb_install(void)
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = -1;
    PyObject *mod = PyModule_New("callbench_anchors");
    if (mod != NULL && PyModule_AddFunctions(mod, anchors) == 0 &&
        PyDict_SetItemString(PyImport_GetModuleDict(), "callbench_anchors", mod) == 0)
        rc = 0;
    if (rc < 0)
        PyErr_Clear();
    Py_XDECREF(mod);
    PyGILState_Release(st);
    return rc;
}
