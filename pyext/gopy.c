/*
 * gopy.c — memview._core functions for Go packages bound by gopy and built
 * together with memview (gopy_bridge.go has the rules). The facade
 * (memview/_gobind.py) calls them with the integer handles gopy's Python
 * objects carry.
 */
#include "capi.h"
#include "_cgo_export.h"

static MVArray *
array_arg(PyObject *o)
{
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Array is required");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    return mv_check_live(a) < 0 ? NULL : a;
}

/* from_gopy(handle: int, writable: int) -> Array over the memory of the Go value
 * behind a gopy handle; writable: -1 as Go says, 0 read-only, 1 writable required */
static PyObject *
core_from_gopy(PyObject *mod, PyObject *args)
{
    if (mv_check_go() < 0)
        return NULL;
    long long h;
    int writable;
    if (!PyArg_ParseTuple(args, "Li", &h, &writable))
        return NULL;
    mv_meta m;
    mv_err e;
    if (mvgo_from_gopy(h, writable, &m, &e) != 0)
        return mv_raise(&e);
    return mv_new_array(&m, NULL);
}

/* lend_slice(a, elem: str) -> int: a gopy handle to a Go []elem over a's memory
 * (contiguous, writable, of the matching dtype), for one call; give it back
 * with unlend */
static PyObject *
core_lend_slice(PyObject *mod, PyObject *args)
{
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
    NOGIL(a->device_kind != MV_DEV_CPU, rc = mvgo_lend_slice(a->handle, (char *)elem, &h, &e));
    if (rc != 0)
        return mv_raise(&e);
    return PyLong_FromLongLong(h);
}

/* lend_array(a) -> int: a gopy handle to a new Go *memview.Array viewing a, for
 * one call; give it back with unlend */
static PyObject *
core_lend_array(PyObject *mod, PyObject *o)
{
    if (mv_check_go() < 0)
        return NULL;
    MVArray *a = array_arg(o);
    if (a == NULL)
        return NULL;
    int64_t h = 0;
    mv_err e;
    int rc;
    /* CUDA memory the host reaches first waits for the device's pending work on it */
    NOGIL(a->device_kind != MV_DEV_CPU, rc = mvgo_lend_array(a->handle, &h, &e));
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
    if (mvgo_lend_buffer(view->buf, ndim, (int64_t *)shape, (int64_t *)view->strides, view->itemsize,
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
    if (mv_check_go() < 0)
        return NULL;
    long long h = PyLong_AsLongLong(arg);
    if (h == -1 && PyErr_Occurred())
        return NULL;
    mv_err e;
    if (mvgo_unlend(h, &e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

static PyMethodDef gopy_methods[] = {
    {"from_gopy", core_from_gopy, METH_VARARGS, "from_gopy(handle, writable) -> array over a Go value's memory"},
    {"lend_slice", core_lend_slice, METH_VARARGS, "lend_slice(a, elem) -> gopy handle of a Go []elem over a"},
    {"lend_array", core_lend_array, METH_O, "lend_array(a) -> gopy handle of a Go *memview.Array viewing a"},
    {"lend_buffer", core_lend_buffer, METH_VARARGS, "lend_buffer(obj, kind) -> gopy handle of obj's memory as kind"},
    {"unlend", core_unlend, METH_O, "unlend(handle): drop a handle a lend_* function made"},
    {NULL},
};

int
mv_add_gopy_functions(PyObject *mod)
{
    return PyModule_AddFunctions(mod, gopy_methods);
}
