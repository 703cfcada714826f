/*
 * ops_fields.c — record fields by name, as NumPy has them: a["b"] is a view of
 * field b (a sub-array field adds its dimensions as axes) and a[["a", "c"]] a
 * view whose items hold only fields a and c, at their offsets, with the whole
 * item's size, so that the other fields lie in its gaps (which writes never
 * touch: mv_meta.runs). Go says once per dtype and key where the field lies
 * (fields.go, memview.DType.Field and Select; the one cache, ops_dtype.c);
 * the view is a C-level view of the array's memory.
 */
#include "ops.h"

int
mv_is_field_key(PyObject *key)
{
    if (PyUnicode_Check(key))
        return 1;
    if (!PyList_Check(key) || PyList_Size(key) == 0)
        return 0;
    for (Py_ssize_t k = 0; k < PyList_Size(key); k++)
        if (!PyUnicode_Check(PyList_GetItem(key, k)))
            return 0;
    return 1;
}

/* field_key writes the one cache's key of a field view (fields.go's
 * mvgo_field_info reads it): '1' and a name, or '*' and names, each followed
 * by ':', then ':' and the dtype's name. A new bytes object, or NULL with the
 * exception (ValueError for a name no field can have). */
static PyObject *
field_key(PyObject *key, const char *dtype)
{
    int one = PyUnicode_Check(key);
    Py_ssize_t n = one ? 1 : PyList_Size(key);
    PyObject *parts = PyList_New(0);
    if (parts == NULL)
        return NULL;
    PyObject *out = NULL;
    PyObject *head = PyBytes_FromString(one ? "1" : "*");
    if (head == NULL || PyList_Append(parts, head) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *name = one ? key : PyList_GetItem(key, k);
        PyObject *b = PyUnicode_AsUTF8String(name);
        if (b == NULL)
            goto done;
        char *s = PyBytes_AsString(b);
        if (s == NULL || PyBytes_Size(b) == 0 || strchr(s, ':') != NULL || strlen(s) != (size_t)PyBytes_Size(b)) {
            Py_DECREF(b);
            PyErr_Format(PyExc_ValueError, "memview: no field of name %S", name);
            goto done;
        }
        int rc = PyList_Append(parts, b);
        Py_DECREF(b);
        if (rc < 0)
            goto done;
        PyObject *colon = PyBytes_FromString(":");
        if (colon == NULL)
            goto done;
        rc = PyList_Append(parts, colon);
        Py_DECREF(colon);
        if (rc < 0)
            goto done;
    }
    PyObject *tail = PyBytes_FromFormat(":%s", dtype);
    if (tail == NULL)
        goto done;
    int rc = PyList_Append(parts, tail);
    Py_DECREF(tail);
    if (rc < 0)
        goto done;
    PyObject *empty = PyBytes_FromString("");
    if (empty != NULL) {
        out = PyObject_CallMethod(empty, "join", "O", parts);
        Py_DECREF(empty);
    }
done:
    Py_XDECREF(head);
    Py_DECREF(parts);
    return out;
}

PyObject *
mv_field_view(MVArray *a, PyObject *key)
{
    if (mv_check_live(a) < 0)
        return NULL;
    if (strchr(a->format, ':') == NULL) { /* no field names, no fields: as NumPy, not an index */
        PyErr_Format(PyExc_IndexError, "memview: only integers, slices (`:`), ellipsis (`...`) and None are "
                                       "valid indices, not '%s'", PyUnicode_Check(key) ? "str" : "list");
        return NULL;
    }
    PyObject *k = field_key(key, a->dtype);
    if (k == NULL)
        return NULL;
    const mv_item *it = mv_ask(MV_ASK_FIELD, PyBytes_AsString(k), PyBytes_Size(k), 1);
    Py_DECREF(k);
    if (it == NULL) {
        if (PyList_Check(key) && PyErr_ExceptionMatches(PyExc_ValueError)) {
            /* a list naming a field the record has not: KeyError, as NumPy's */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyObject *text = value ? PyObject_Str(value) : NULL;
            const char *t = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
            if (t != NULL && strstr(t, "no field of name") != NULL) {
                PyErr_SetObject(PyExc_KeyError, text);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
            } else {
                PyErr_Restore(type, value, tb);
            }
            Py_XDECREF(text);
            return NULL;
        }
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            /* an array without fields: as NumPy, not an index */
            PyErr_Format(PyExc_IndexError, "memview: only integers, slices (`:`), ellipsis (`...`) and None are "
                                           "valid indices, not '%s'", PyUnicode_Check(key) ? "str" : "list");
        }
        return NULL;
    }
    int nd = a->ndim + it->nsub;
    if (nd > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: the field's view would have %d dimensions (at most %d)", nd,
                     MV_MAXDIM);
        return NULL;
    }
    Py_ssize_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    for (int d = 0; d < a->ndim; d++) {
        shape[d] = a->shape[d];
        strides[d] = a->strides[d];
    }
    for (int d = 0; d < it->nsub; d++) {
        shape[a->ndim + d] = it->sub[d];
        strides[a->ndim + d] = it->sub[it->nsub + d];
    }
    mv_desc d = {
        .buf = a->buf + it->offset,
        .ndim = nd,
        .shape = shape,
        .strides = strides,
        .itemsize = it->itemsize,
        .format = it->format,
        .dtype = it->dtype,
        .typestr = it->typestr,
        .runs = it->runs,
        .normal = it->normal,
        .short16 = it->short16,
        .readonly = a->readonly,
        .device_kind = a->device_kind,
        .device_id = a->device_id,
        .device = a->device,
        .pending = a->pending,
        .base = a->base ? a->base : (PyObject *)a,
    };
    MVArray *v = mv_array_new(&d);
    if (v != NULL)
        mv_hold(v, a);
    return (PyObject *)v;
}
