/*
 * ops_views.c — the everyday operations of memview's array type done in C from the
 * metadata cached in the object: indexing with every key (ints, slices, ...,
 * None, record field names), element reads and writes, T / transpose, reshape,
 * len and iteration. Go is not called: the layouts are core_layouts.c's (the Go
 * core's rules and errors, ported; tests/test_views_c.py checks both against
 * each other), writes are ops_assign.c's, elements of types C does not read
 * go to the facade's codecs with their bytes only.
 *
 * A view made here is a C-level view: it shares its parent's owner (mv_hold,
 * core_owner.c), and has no Go handle of its own until Go code needs one
 * (mv_array_handle makes it then, from the owner's handle and the view's
 * layout).
 */
#include "ops.h"

/* element: the element at offset of a, as a Python value (a device array's is
 * copied to the host first: Array.item of a 0-d view) */
static PyObject *
element(MVArray *a, const mv_layout *l)
{
    if (a->device_kind == MV_DEV_CPU)
        return mv_element_value(a, a->buf + l->offset);
    PyObject *v = mv_view_of(a, l);
    if (v == NULL)
        return NULL;
    PyObject *r = PyObject_CallMethod(v, "item", NULL);
    Py_DECREF(v);
    return r;
}

/* ---- slots and methods ---- */

static PyObject *
array_subscript(PyObject *self, PyObject *key)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    mv_layout l;
    int scalar;
    if (mv_is_field_key(key))
        return mv_field_view(a, key);
    if (!mv_index_layout(a, key, &l, &scalar))
        return NULL;
    if (scalar)
        return a->scalar != MV_SK_NONE && a->device_kind == MV_DEV_CPU ? mv_read_scalar(a, a->buf + l.offset)
                                                                      : element(a, &l);
    return mv_view_of(a, &l);
}

static int
array_ass_subscript(PyObject *self, PyObject *key, PyObject *value)
{
    MVArray *a = (MVArray *)self;
    if (value == NULL) {
        PyErr_SetString(PyExc_ValueError, "memview: cannot delete array elements");
        return -1;
    }
    if (mv_check_live(a) < 0)
        return -1;
    if (a->readonly) {
        PyErr_SetString(PyExc_ValueError, "memview: assignment destination is read-only");
        return -1;
    }
    if (mv_is_field_key(key)) {
        PyObject *v = mv_field_view(a, key);
        if (v == NULL)
            return -1;
        int rc = mv_assign_all((MVArray *)v, value);
        Py_DECREF(v);
        return rc;
    }
    mv_layout l;
    int scalar;
    if (!mv_index_layout(a, key, &l, &scalar))
        return -1;
    if (scalar && a->scalar != MV_SK_NONE && a->device_kind == MV_DEV_CPU && mv_write_scalar(a, a->buf + l.offset, value))
        return 0;
    if (PyErr_Occurred())
        return -1;
    return mv_assign_layout(a, &l, value);
}

static Py_ssize_t
array_length(PyObject *self)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return -1;
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return a->shape[0];
}

/* a[i] for i >= 0 (iteration) */
static PyObject *
array_item(PyObject *self, Py_ssize_t i)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_IndexError,
                        "memview: too many indices for array: array is 0-dimensional, but 1 were indexed");
        return NULL;
    }
    if (i < 0 || i >= a->shape[0]) {
        PyErr_Format(PyExc_IndexError, "memview: index %zd is out of bounds for axis 0 with size %zd", i,
                     a->shape[0]);
        return NULL;
    }
    mv_layout l;
    l.ndim = a->ndim - 1;
    l.offset = i * a->strides[0];
    for (int k = 0; k < l.ndim; k++) {
        l.shape[k] = a->shape[k + 1];
        l.strides[k] = a->strides[k + 1];
    }
    if (l.ndim == 0)
        return a->scalar != MV_SK_NONE && a->device_kind == MV_DEV_CPU ? mv_read_scalar(a, a->buf + l.offset)
                                                                      : element(a, &l);
    return mv_view_of(a, &l);
}

/* The iterator over the first axis: a[0], a[1], ... (views or elements). */
typedef struct {
    PyObject_HEAD
    PyObject *arr; /* NULL once exhausted */
    Py_ssize_t i;
} array_iterator;

static PyObject *iterator_type;

static void
iterator_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(((array_iterator *)self)->arr);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

static PyObject *
iterator_next(PyObject *self)
{
    array_iterator *it = (array_iterator *)self;
    if (it->arr == NULL)
        return NULL;
    MVArray *a = (MVArray *)it->arr;
    if (a->ndim > 0 && it->i >= a->shape[0]) {
        Py_CLEAR(it->arr);
        return NULL; /* StopIteration */
    }
    return array_item(it->arr, it->i++);
}

static PyType_Slot iterator_slots[] = {
    {Py_tp_dealloc, iterator_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, iterator_next},
    {0, NULL},
};

static PyType_Spec iterator_spec = {
    .name = "memview._core.ArrayIterator",
    .basicsize = sizeof(array_iterator),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = iterator_slots,
};

static PyObject *
array_iter(PyObject *self)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0) /* checked now, not at the first next() */
        return NULL;
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    if (iterator_type == NULL && (iterator_type = PyType_FromSpec(&iterator_spec)) == NULL)
        return NULL;
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)iterator_type, Py_tp_alloc);
    array_iterator *it = (array_iterator *)alloc((PyTypeObject *)iterator_type, 0);
    if (it == NULL)
        return NULL;
    Py_INCREF(self);
    it->arr = self;
    it->i = 0;
    return (PyObject *)it;
}

PyObject *
mv_get_T(PyObject *self, void *c)
{
    (void)c;
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    mv_layout l;
    mv_transpose_layout(a, NULL, &l);
    return mv_view_of(a, &l);
}

/* The sequence of ints in args (f(*ints) or f(seq)), as a new reference to a
 * tuple or list; NULL without an exception when it is some other form. */
static PyObject *
int_args(PyObject *args, int none_ok)
{
    PyObject *seq = args;
    if (PyTuple_Size(args) == 1) {
        PyObject *x = PyTuple_GetItem(args, 0);
        if (none_ok && x == Py_None)
            return PyTuple_New(0);
        if (PyTuple_Check(x) || PyList_Check(x))
            seq = x;
    }
    Py_INCREF(seq);
    return seq;
}

static PyObject *
array_transpose(PyObject *self, PyObject *args)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    PyObject *axes = int_args(args, 1);
    if (axes == NULL)
        return NULL;
    mv_layout l;
    int ok = mv_transpose_layout(a, axes, &l);
    Py_DECREF(axes);
    return ok ? mv_view_of(a, &l) : NULL;
}

static PyObject *
array_reshape(PyObject *self, PyObject *args)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    PyObject *seq = int_args(args, 0);
    if (seq == NULL)
        return NULL;
    mv_layout l;
    int ok = mv_reshape_layout(a, seq, &l);
    Py_DECREF(seq);
    return ok ? mv_view_of(a, &l) : NULL;
}

PyGetSetDef mv_view_getset[] = {
    {"T", mv_get_T, NULL, "The transposed view (axes reversed).", NULL},
    {NULL},
};

PyMethodDef mv_view_methods[] = {
    {"transpose", array_transpose, METH_VARARGS,
     "transpose(*axes): a view with the axes permuted (reversed when none are given)."},
    {"reshape", array_reshape, METH_VARARGS,
     "reshape(*shape): a view with a new shape; ValueError when the layout needs a copy "
     "(call copy() first)."},
    {NULL},
};


PyType_Slot mv_view_slots[] = {
    {Py_mp_subscript, array_subscript},
    {Py_mp_ass_subscript, array_ass_subscript},
    {Py_mp_length, array_length},
    {Py_sq_length, array_length},
    {Py_tp_iter, array_iter},
    {0, NULL},
};

/* _c_layout(a, op, arg) -> (shape, strides, offset, scalar, c_contiguous,
 * f_contiguous): the layout C computes for a[arg] (op "index"),
 * a.transpose(*arg) ("transpose") or a.reshape(*arg) ("reshape"), or the
 * error it raises; for the differential tests against the Go core (a function
 * of the test build only: selftest.c adds it). */
PyObject *
mv_selftest_c_layout(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *arg;
    const char *op;
    if (!PyArg_ParseTuple(args, "OsO", &o, &op, &arg))
        return NULL;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: _c_layout needs a memview.Array");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    mv_layout l;
    int ok, scalar = 0;
    if (strcmp(op, "index") == 0)
        ok = mv_index_layout(a, arg, &l, &scalar);
    else if (strcmp(op, "transpose") == 0 || strcmp(op, "reshape") == 0) {
        PyObject *seq = PySequence_Tuple(arg);
        if (seq == NULL)
            return NULL;
        ok = op[0] == 't' ? mv_transpose_layout(a, seq, &l) : mv_reshape_layout(a, seq, &l);
        Py_DECREF(seq);
    } else {
        PyErr_Format(PyExc_ValueError, "memview: _c_layout: unknown op %s", op);
        return NULL;
    }
    if (!ok)
        return NULL;
    PyObject *shape = PyTuple_New(l.ndim), *strides = PyTuple_New(l.ndim);
    if (shape == NULL || strides == NULL) {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    for (int k = 0; k < l.ndim; k++) {
        PyTuple_SetItem(shape, k, PyLong_FromSsize_t(l.shape[k]));
        PyTuple_SetItem(strides, k, PyLong_FromSsize_t(l.strides[k]));
    }
    int c, f;
    mv_contiguity(l.ndim, l.shape, l.strides, a->itemsize, &c, &f);
    return Py_BuildValue("(NNnOii)", shape, strides, l.offset, scalar ? Py_True : Py_False, c, f);
}

/* readonly_view(a) -> a read-only view of a */
static PyObject *
core_readonly_view(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: readonly_view needs a memview.Array");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    mv_layout l = {.ndim = a->ndim, .offset = 0};
    for (int k = 0; k < a->ndim; k++) {
        l.shape[k] = a->shape[k];
        l.strides[k] = a->strides[k];
    }
    MVArray *v = (MVArray *)mv_view_of(a, &l);
    if (v != NULL)
        v->readonly = 1;
    return (PyObject *)v;
}

/* numpy_view(a) -> a, or a C-level view of a that exports the spelling memview
 * gives new arrays of its layout (Go's DType.Normal, the creation answer of the
 * one cache): NumPy's PEP 3118 reader reads that as memview does, whatever the
 * exporter's own spelling ("P", "3n", "ix"). memview's own ways into NumPy
 * (__array__, __array_ufunc__) go through it; memoryview(a) keeps the
 * exporter's spelling. */
static PyObject *
core_numpy_view(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: numpy_view needs a memview.Array");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    if (a->normal)
        return Py_NewRef(o);
    const mv_item *it = mv_ask(MV_ASK_CREATE, a->dtype, (Py_ssize_t)strlen(a->dtype), 1);
    if (it == NULL)
        return NULL;
    if (strcmp(it->format, a->format) == 0)
        return Py_NewRef(o);
    char *format = mv_pymem_strdup(it->format);
    if (format == NULL)
        return PyErr_NoMemory();
    mv_layout l = {.ndim = a->ndim, .offset = 0};
    for (int k = 0; k < a->ndim; k++) {
        l.shape[k] = a->shape[k];
        l.strides[k] = a->strides[k];
    }
    MVArray *v = (MVArray *)mv_view_of(a, &l);
    if (v == NULL) {
        PyMem_Free(format);
        return NULL;
    }
    if (v->format != v->fmt_inline)
        PyMem_Free(v->format);
    v->format = format; /* dealloc frees a format that is not inline */
    v->normal = 1;
    return (PyObject *)v;
}

PyMethodDef mv_view_functions[] = {
    {"readonly_view", core_readonly_view, METH_O, "readonly_view(a) -> read-only view"},
    {"numpy_view", core_numpy_view, METH_O, "numpy_view(a) -> a, or a view of a spelled as NumPy reads it"},
    {NULL},
};
