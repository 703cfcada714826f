/*
 * proto_array_interface.c — NumPy's __array_interface__ (version 3) for arrays in
 * host-accessible memory, built from the metadata cached on the array. Arrays in
 * CUDA device memory have none (AttributeError, so hasattr is False): NumPy's
 * interface promises a host pointer.
 *
 * descr: for a number dtype [('', typestr)]; for records and sub-arrays it is
 * worked out once per format from the Go core's item descriptor
 * (memview/_interface.py) and cached here.
 */
#include "proto.h"

static PyObject *descr_cache;  /* format -> (typestr, descr, subshape) */
static PyObject *describe_fn;  /* memview._interface.describe */

static PyObject *
describe(const char *format)
{
    if (descr_cache == NULL && (descr_cache = PyDict_New()) == NULL)
        return NULL;
    PyObject *hit = PyDict_GetItemString(descr_cache, format); /* borrowed */
    if (hit != NULL) {
        Py_INCREF(hit);
        return hit;
    }
    if (describe_fn == NULL) {
        PyObject *m = PyImport_ImportModule("memview._interface");
        if (m == NULL)
            return NULL;
        describe_fn = PyObject_GetAttrString(m, "describe");
        Py_DECREF(m);
        if (describe_fn == NULL)
            return NULL;
    }
    PyObject *r = PyObject_CallFunction(describe_fn, "s", format);
    if (r == NULL)
        return NULL;
    if (!PyTuple_Check(r) || PyTuple_Size(r) != 3) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_SystemError, "memview: describe() must return (typestr, descr, subshape)");
        return NULL;
    }
    if (PyDict_SetItemString(descr_cache, format, r) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* tuple of v[0..n) followed by the ints of extra */
static PyObject *
dims(const Py_ssize_t *v, int n, PyObject *extra, const Py_ssize_t *extra_v)
{
    Py_ssize_t k = extra ? PyTuple_Size(extra) : 0;
    PyObject *t = PyTuple_New(n + k);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n + k; i++) {
        PyObject *x = i < n ? PyLong_FromSsize_t(v[i]) : PyLong_FromSsize_t(extra_v[i - n]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, x);
    }
    return t;
}

PyObject *
mv_get_array_interface(PyObject *self, void *closure)
{
    (void)closure;
    MVArray *a = (MVArray *)self;
    if (a->device_kind == MV_DEV_CUDA) {
        PyErr_Format(PyExc_AttributeError,
                     "memview: the array is in %s device memory and has no __array_interface__ (a host "
                     "interface); copy it to the host with a.to('cpu'), or use __cuda_array_interface__ "
                     "or DLPack", a->device);
        return NULL;
    }
    if (mv_check_live(a) < 0)
        return NULL;
    PyObject *typestr = NULL, *descr = NULL, *info = NULL, *shape = NULL, *strides = NULL, *r = NULL;
    PyObject *sub = NULL;
    Py_ssize_t subshape[MV_MAXDIM] = {0}, substrides[MV_MAXDIM] = {0};
    if (a->typestr[1] == 'V') {
        if ((info = describe(a->format)) == NULL)
            return NULL;
        typestr = PyTuple_GetItem(info, 0);
        descr = PyTuple_GetItem(info, 1);
        sub = PyTuple_GetItem(info, 2);
        Py_INCREF(typestr);
        Py_INCREF(descr);
        Py_ssize_t k = PyTuple_Size(sub);
        if (k == 0)
            sub = NULL;
        else if (k + a->ndim > MV_MAXDIM) {
            PyErr_SetString(PyExc_ValueError, "memview: too many dimensions with the item's sub-array");
            goto out;
        } else {
            /* the sub-array's own axes are C-contiguous items of the base type */
            Py_ssize_t base = a->itemsize;
            for (Py_ssize_t i = 0; i < k; i++) {
                subshape[i] = PyLong_AsSsize_t(PyTuple_GetItem(sub, i));
                if (subshape[i] > 0)
                    base /= subshape[i];
            }
            for (Py_ssize_t i = k - 1; i >= 0; i--) {
                substrides[i] = base;
                base *= subshape[i];
            }
        }
    } else {
        if ((typestr = PyUnicode_FromString(a->typestr)) == NULL)
            return NULL;
        if ((descr = Py_BuildValue("[(sO)]", "", typestr)) == NULL)
            goto out;
    }
    if ((shape = dims(a->shape, a->ndim, sub, subshape)) == NULL)
        goto out;
    if (a->c_contig) { /* strides None means C-contiguous */
        Py_INCREF(Py_None);
        strides = Py_None;
    } else if ((strides = dims(a->strides, a->ndim, sub, substrides)) == NULL) {
        goto out;
    }
    r = Py_BuildValue("{s:O,s:O,s:O,s:(NO),s:O,s:i}", "shape", shape, "typestr", typestr, "descr", descr,
                      "data", PyLong_FromVoidPtr(a->buf), a->readonly ? Py_True : Py_False,
                      "strides", strides, "version", 3);
out:
    Py_XDECREF(info);
    Py_XDECREF(typestr);
    Py_XDECREF(descr);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return r;
}

PyGetSetDef mv_array_interface_getset[] = {
    {"__array_interface__", mv_get_array_interface, NULL, "NumPy array interface v3 (host memory only).", NULL},
    {NULL},
};
