/*
 * proto_pickle.c — rebuilding an array from the bytes pickle carried: out of band
 * (protocol 5: a PickleBuffer in process, or whatever buffer the transport hands
 * back — bytes, a read-only memoryview of shared memory, a bytearray) or in band.
 * The buffer's memory is used in place, read-only if the buffer is.
 */
#include "proto.h"

/* child_from_bytes is from_bytes in a forked child (go_fork.c): the format must
 * be one the C import knows without Go (ops_import.c). */
static PyObject *
child_from_bytes(PyObject *obj, int ndim, const int64_t *shape64, const char *format, char order, int writable)
{
    Py_buffer *view = PyMem_Calloc(1, sizeof(Py_buffer));
    if (view == NULL)
        return PyErr_NoMemory();
    if (PyObject_GetBuffer(obj, view, PyBUF_ANY_CONTIGUOUS | (writable == 1 ? PyBUF_WRITABLE : 0)) < 0) {
        PyMem_Free(view);
        return NULL;
    }
    Py_ssize_t shape[MV_MAXDIM];
    for (int k = 0; k < ndim; k++)
        shape[k] = (Py_ssize_t)shape64[k];
    /* the bytes are in order's order: the same memory with its dense strides */
    PyObject *a = mv_import_as(obj, view, ndim, shape, order == 'F' ? 'F' : 'C', format,
                               view->readonly || writable == 0, PyBUF_ANY_CONTIGUOUS);
    if (a != NULL && ((MVArray *)a)->len != view->len) {
        Py_CLEAR(a);
        PyErr_Format(PyExc_ValueError, "memview: %zd bytes for an array of shape and dtype %s", view->len, format);
        return NULL; /* the array gave the buffer back */
    }
    if (a == NULL) {
        PyBuffer_Release(view); /* the import did not take it */
        PyMem_Free(view);
        if (PyErr_Occurred())
            return NULL;
        char what[160];
        PyOS_snprintf(what, sizeof what, "unpickling an array of format %.100s", format);
        return mv_raise_forked(what);
    }
    return a;
}

/* from_bytes(obj, shape, dtype, order, writable) -> Array: obj's contiguous
 * bytes viewed as an array of dtype and shape laid out in order 'C' or 'F'.
 * writable: -1 as obj, 0 read-only, 1 writable (BufferError if obj is not). */
static PyObject *
core_from_bytes(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *obj, *shape_t;
    const char *dtype, *order;
    int writable;
    if (!PyArg_ParseTuple(args, "OO!ssi", &obj, &PyTuple_Type, &shape_t, &dtype, &order, &writable))
        return NULL;
    if ((order[0] != 'C' && order[0] != 'F') || order[1] != 0) {
        PyErr_Format(PyExc_ValueError, "memview: order must be 'C' or 'F', not '%s'", order);
        return NULL;
    }
    Py_ssize_t ndim = PyTuple_Size(shape_t);
    if (ndim > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: %zd dimensions (at most %d)", ndim, MV_MAXDIM);
        return NULL;
    }
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    for (Py_ssize_t i = 0; i < ndim; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape_t, i));
        if (shape[i] == -1 && PyErr_Occurred())
            return NULL;
        if (shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "memview: negative dimension");
            return NULL;
        }
    }
    if (!mv_go_usable())
        return child_from_bytes(obj, (int)ndim, shape, dtype, order[0], writable);
    /* the pickle names a PEP 3118 format: its item size and the array's format
     * (copied: the answer is kept only until the next question) */
    const mv_item *info = mv_ask(MV_ASK_FORMAT, dtype, (Py_ssize_t)strlen(dtype), 1);
    if (info == NULL)
        return NULL;
    int64_t itemsize = info->itemsize;
    char *format = mv_pymem_strdup(info->format);
    if (format == NULL)
        return PyErr_NoMemory();
    int64_t n = itemsize;
    for (Py_ssize_t i = 0; i < ndim; i++) {
        Py_ssize_t k = order[0] == 'C' ? ndim - 1 - i : i;
        strides[k] = n;
        if (shape[k] != 0 && n > INT64_MAX / shape[k]) {
            PyMem_Free(format);
            PyErr_SetString(PyExc_ValueError, "memview: the shape is too large");
            return NULL;
        }
        n *= shape[k];
    }
    Py_buffer *view = PyMem_Calloc(1, sizeof(Py_buffer));
    if (view == NULL) {
        PyMem_Free(format);
        return PyErr_NoMemory();
    }
    /* the bytes only, C or Fortran contiguous (a PickleBuffer of an F-ordered array) */
    if (PyObject_GetBuffer(obj, view, PyBUF_ANY_CONTIGUOUS | (writable == 1 ? PyBUF_WRITABLE : 0)) < 0) {
        /* not contiguous, or read-only when writable was asked for */
        PyMem_Free(view);
        PyMem_Free(format);
        return NULL;
    }
    PyObject *r = NULL;
    if (view->len != n) {
        PyErr_Format(PyExc_ValueError, "memview: %zd bytes for an array of %lld bytes (shape and dtype %s)",
                     view->len, (long long)n, dtype);
    } else {
        mv_meta m;
        mv_err e;
        int readonly = view->readonly || writable == 0;
        if (mv_go_import(view->buf, (int)ndim, shape, strides, itemsize, format, readonly, view, &m, &e) == 0) {
            PyMem_Free(format);
            return mv_new_array(&m, obj); /* the buffer is released with the array's memory */
        }
        mv_raise(&e);
    }
    PyBuffer_Release(view);
    PyMem_Free(view);
    PyMem_Free(format);
    return r;
}

PyMethodDef mv_pickle_functions[] = {
    {"from_bytes", core_from_bytes, METH_VARARGS,
     "from_bytes(obj, shape, dtype, order, writable) -> Array over obj's contiguous bytes"},
    {NULL},
};
