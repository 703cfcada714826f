/*
 * ops_views.c — the everyday operations of memview's array type done in C from the
 * metadata cached in the object: basic indexing (ints, slices, ..., None),
 * element reads and writes of the basic numeric dtypes (core_elements.c), T /
 * transpose, reshape when it is a view, len and iteration. Go is not called.
 *
 * A view made here is a C-level view: it shares its parent's owner (mv_hold,
 * core_owner.c), and has no Go handle of its own until Go code needs one
 * (mv_array_handle makes it then, from the owner's handle and the view's
 * layout). The layouts are computed by core_layouts.c with the Go core's
 * rules; tests/test_views_c.py checks both against each other.
 *
 * Whatever the fast path does not cover exactly — other key types, errors,
 * elements of other dtypes, device memory for elements — goes to the facade's
 * Python functions set by set_hooks, which call Go as before: errors are
 * therefore always raised by the one implementation.
 */
#include "ops.h"

/* The facade's slow paths (memview/_array.py), set by set_hooks. */
static PyObject *hook_getitem;   /* (a, key) -> value */
static PyObject *hook_setitem;   /* (a, key, value) -> None */
static PyObject *hook_transpose; /* (a, args) -> view */
static PyObject *hook_reshape;   /* (a, args) -> view */

/* ---- C-level views ---- */

/* make_view: a new array over p's memory with layout l (offset from p->buf). */
static PyObject *
make_view(MVArray *p, const mv_layout *l)
{
    mv_desc d = {
        .buf = p->buf + l->offset,
        .ndim = l->ndim,
        .shape = l->shape,
        .strides = l->strides,
        .readonly = p->readonly,
        .base = p->base ? p->base : (PyObject *)p,
        .like = p, /* the items, the device, the memory's shared pending-stream word */
    };
    MVArray *v = mv_array_new(&d);
    if (v != NULL)
        mv_hold(v, p);
    return (PyObject *)v;
}

/* ---- slots and methods ---- */

static PyObject *
slow_call(PyObject *hook, PyObject *self, PyObject *arg, PyObject *arg2)
{
    if (hook == NULL) {
        PyErr_SetString(PyExc_SystemError, "memview: the array type's Python functions are not set");
        return NULL;
    }
    PyObject *r = PyObject_CallFunctionObjArgs(hook, self, arg, arg2, NULL);
    if (r == NULL)
        mv_undo_fresh_handles();
    return r;
}

static PyObject *
array_subscript(PyObject *self, PyObject *key)
{
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    mv_layout l;
    int scalar;
    if (!mv_index_layout(a, key, &l, &scalar))
        return slow_call(hook_getitem, self, key, NULL);
    if (scalar) {
        if (a->scalar != MV_SK_NONE && a->device_kind == MV_DEV_CPU)
            return mv_read_scalar(a, a->buf + l.offset);
        return slow_call(hook_getitem, self, key, NULL);
    }
    return make_view(a, &l);
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
    mv_layout l;
    int scalar;
    if (a->scalar != MV_SK_NONE && a->device_kind == MV_DEV_CPU && !a->readonly &&
        mv_index_layout(a, key, &l, &scalar) && scalar && mv_write_scalar(a, a->buf + l.offset, value))
        return 0;
    PyObject *r = slow_call(hook_setitem, self, key, value);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
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
    if (a->ndim > 0 && (i < 0 || i >= a->shape[0])) {
        /* the end of an iteration: Go's message, without Go */
        PyErr_Format(PyExc_IndexError, "memview: index %zd is out of bounds for axis 0 with size %zd", i,
                     a->shape[0]);
        return NULL;
    }
    if (a->ndim == 0) {
        PyObject *k = PyLong_FromSsize_t(i);
        if (k == NULL)
            return NULL;
        PyObject *r = slow_call(hook_getitem, self, k, NULL); /* raises */
        Py_DECREF(k);
        return r;
    }
    mv_layout l;
    l.ndim = a->ndim - 1;
    l.offset = i * a->strides[0];
    for (int k = 0; k < l.ndim; k++) {
        l.shape[k] = a->shape[k + 1];
        l.strides[k] = a->strides[k + 1];
    }
    if (l.ndim == 0) {
        if (a->scalar != MV_SK_NONE && a->device_kind == MV_DEV_CPU)
            return mv_read_scalar(a, a->buf + l.offset);
        PyObject *k = PyLong_FromSsize_t(i);
        if (k == NULL)
            return NULL;
        PyObject *r = slow_call(hook_getitem, self, k, NULL);
        Py_DECREF(k);
        return r;
    }
    return make_view(a, &l);
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
    return make_view(a, &l);
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
    if (!ok)
        return slow_call(hook_transpose, self, args, NULL);
    return make_view(a, &l);
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
    if (!ok)
        return slow_call(hook_reshape, self, args, NULL);
    return make_view(a, &l);
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

/* set_hooks(getitem, setitem, transpose, reshape): the facade's slow paths */
static PyObject *
core_set_hooks(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *g, *s, *t, *r;
    if (!PyArg_ParseTuple(args, "OOOO", &g, &s, &t, &r))
        return NULL;
    PyObject *old[4] = {hook_getitem, hook_setitem, hook_transpose, hook_reshape};
    Py_INCREF(g);
    Py_INCREF(s);
    Py_INCREF(t);
    Py_INCREF(r);
    hook_getitem = g;
    hook_setitem = s;
    hook_transpose = t;
    hook_reshape = r;
    for (int k = 0; k < 4; k++)
        Py_XDECREF(old[k]);
    Py_RETURN_NONE;
}

/* _c_layout(a, op, arg) -> (shape, strides, offset, scalar, c_contiguous,
 * f_contiguous) or None: the layout the C fast path computes for a[arg] (op
 * "index"), a.transpose(*arg) ("transpose") or a.reshape(*arg) ("reshape"), None
 * where it leaves the work to Go; for the differential tests against the Go core
 * (a function of the test build only: selftest.c adds it). */
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
        Py_RETURN_NONE;
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
    MVArray *v = (MVArray *)make_view(a, &l);
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
    {"set_hooks", core_set_hooks, METH_VARARGS, "set_hooks(getitem, setitem, transpose, reshape)"},
    {"numpy_view", core_numpy_view, METH_O, "numpy_view(a) -> a, or a view of a spelled as NumPy reads it"},
    {NULL},
};

/* ---- views in a forked child (go_fork.c), where the facade's slow paths cannot
 * ask Go: the same layouts, with the errors raised here ---- */

/* decode_key turns _core.view's encoded key (memview/_array.py encode_key) back
 * into an indexing key of ints, slices, Ellipsis and None. */
static PyObject *
decode_key(PyObject *enc)
{
    Py_ssize_t n = PyTuple_Size(enc);
    PyObject *key = n < 0 ? NULL : PyTuple_New(n);
    for (Py_ssize_t i = 0; key != NULL && i < n; i++) {
        PyObject *it = PyTuple_GetItem(enc, i), *k = NULL;
        long long f[7];
        if (!PyTuple_Check(it) || PyTuple_Size(it) != 7) {
            PyErr_SetString(PyExc_TypeError, "memview: malformed index key");
            Py_CLEAR(key);
            break;
        }
        for (int j = 0; j < 7; j++)
            f[j] = PyLong_AsLongLong(PyTuple_GetItem(it, j));
        if (PyErr_Occurred()) {
            Py_CLEAR(key);
            break;
        }
        if (f[0] == 0) {
            k = PyLong_FromLongLong(f[1]);
        } else if (f[0] == 1) {
            PyObject *start = f[5] ? PyLong_FromLongLong(f[2]) : Py_NewRef(Py_None);
            PyObject *stop = f[6] ? PyLong_FromLongLong(f[3]) : Py_NewRef(Py_None);
            PyObject *step = f[4] ? PyLong_FromLongLong(f[4]) : Py_NewRef(Py_None);
            k = start && stop && step ? PySlice_New(start, stop, step) : NULL;
            Py_XDECREF(start);
            Py_XDECREF(stop);
            Py_XDECREF(step);
        } else {
            k = Py_NewRef(f[0] == 2 ? Py_Ellipsis : Py_None);
        }
        if (k == NULL) {
            Py_CLEAR(key);
            break;
        }
        PyTuple_SetItem(key, i, k);
    }
    return key;
}

static PyObject *
shape_tuple(const MVArray *a)
{
    PyObject *t = PyTuple_New(a->ndim);
    for (int k = 0; t != NULL && k < a->ndim; k++)
        PyTuple_SetItem(t, k, PyLong_FromSsize_t(a->shape[k]));
    return t;
}

PyObject *
mv_child_view(MVArray *a, PyObject *enc)
{
    PyObject *key = decode_key(enc);
    if (key == NULL)
        return NULL;
    mv_layout l;
    int scalar;
    int ok = mv_index_layout(a, key, &l, &scalar);
    Py_DECREF(key);
    if (ok)
        return make_view(a, &l);
    if (!PyErr_Occurred()) {
        PyObject *shape = shape_tuple(a);
        if (shape != NULL)
            PyErr_Format(PyExc_IndexError,
                         "memview: index out of bounds, or too many indices, for an array of shape %R", shape);
        Py_XDECREF(shape);
    }
    return NULL;
}

PyObject *
mv_child_transpose(MVArray *a, PyObject *axes)
{
    mv_layout l;
    if (mv_transpose_layout(a, PyTuple_Size(axes) == 0 ? NULL : axes, &l))
        return make_view(a, &l);
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "memview: axes %R do not match an array of %d dimensions", axes, a->ndim);
    return NULL;
}

PyObject *
mv_child_reshape(MVArray *a, PyObject *shape)
{
    mv_layout l;
    if (mv_reshape_layout(a, shape, &l))
        return make_view(a, &l);
    if (!PyErr_Occurred()) {
        PyObject *from = shape_tuple(a);
        if (from != NULL)
            PyErr_Format(PyExc_ValueError, "memview: cannot reshape an array of shape %R into shape %R as a view",
                         from, shape);
        Py_XDECREF(from);
    }
    return NULL;
}

PyObject *
mv_child_readonly(MVArray *a)
{
    mv_layout l = {.ndim = a->ndim, .offset = 0};
    for (int k = 0; k < a->ndim; k++) {
        l.shape[k] = a->shape[k];
        l.strides[k] = a->strides[k];
    }
    MVArray *v = (MVArray *)make_view(a, &l);
    if (v != NULL)
        v->readonly = 1;
    return (PyObject *)v;
}
