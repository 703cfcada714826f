/*
 * mem_builder.c — memview's Builder type (memview._core.BuilderBase; the facade's
 * memview.Builder subclasses it): builds a 1-D array of one dtype item by item
 * (append), from any iterable (extend) or from any buffer of the same item
 * format (extend, one copy), with no Python list in between.
 *
 * C converts each value itself for the basic dtypes and writes it straight into
 * the Go builder's memory (off the Go heap); values it does not convert (and
 * other dtypes) go through the facade's packer, which is memview's own
 * conversion (_dtypes.pack), so a Builder stores exactly what assignment
 * would. Go is called only to grow the memory (by a factor of two) and to
 * finish. Each value is converted into scratch space first and copied in after
 * the room for it is made, so Python code run by a conversion (a __bool__, a
 * packer, a generator) may even use the same builder.
 */
#include "mem.h"

PyObject *mv_builder_base_type = NULL;
static PyObject *mv_builder_type = NULL; /* the facade's subclass */

#define BL ((MVBuilder *)self)

static int
mv_is_builder(PyObject *o)
{
    return mv_builder_base_type != NULL && PyObject_TypeCheck(o, (PyTypeObject *)mv_builder_base_type);
}

/* check_builder returns the live, idle builder o, or NULL with an exception. */
static MVBuilder *
check_builder(PyObject *o)
{
    if (!mv_is_builder(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Builder is required");
        return NULL;
    }
    MVBuilder *b = (MVBuilder *)o;
    if (b->handle == 0) {
        PyErr_SetString(PyExc_ValueError, "memview: operation on a released builder");
        return NULL;
    }
    if (b->busy > 0) {
        PyErr_SetString(PyExc_BufferError, "memview: the builder is in use by another thread");
        return NULL;
    }
    return b;
}

/* room makes space for additional more bytes (Go grows the memory by 2x). */
static int
room(MVBuilder *b, Py_ssize_t additional)
{
    if (b->busy > 0) {
        PyErr_SetString(PyExc_BufferError, "memview: the builder is in use by another thread");
        return -1;
    }
    if (additional <= b->cap - b->len)
        return 0;
    if (mv_check_go() < 0)
        return -1;
    char *data = NULL;
    int64_t cap = 0;
    mv_err e;
    int rc;
    b->busy++;
    /* growing copies what is there */
    NOGIL(b->len >= MV_NOGIL_MIN, rc = mv_go_builder_reserve(b->handle, b->len, additional, &data, &cap, &e));
    b->busy--;
    if (rc != 0) {
        mv_raise(&e);
        return -1;
    }
    b->data = data;
    b->cap = (Py_ssize_t)cap;
    return 0;
}

/* push converts v and appends it. scratch has room for one item. */
static int
push(MVBuilder *b, PyObject *v, char *scratch)
{
    if (mv_builder_convert(b, v, scratch) < 0)
        return -1;
    if (b->handle == 0) {
        PyErr_SetString(PyExc_ValueError, "memview: operation on a released builder");
        return -1;
    }
    if (room(b, b->itemsize) < 0)
        return -1;
    memcpy(b->data + b->len, scratch, (size_t)b->itemsize);
    b->len += b->itemsize;
    return 0;
}

/* scratch space for one item: on the stack when small */
typedef struct {
    char small[64];
    char *p;
} scratch_t;

static char *
scratch_get(scratch_t *s, Py_ssize_t itemsize)
{
    s->p = itemsize <= (Py_ssize_t)sizeof s->small ? s->small : PyMem_Malloc((size_t)itemsize);
    if (s->p == NULL)
        PyErr_NoMemory();
    return s->p;
}

static void
scratch_put(scratch_t *s)
{
    if (s->p != s->small)
        PyMem_Free(s->p);
}

/* builder_append(b, value) */
static PyObject *
bld_append(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *v;
    if (!PyArg_ParseTuple(args, "OO", &o, &v))
        return NULL;
    MVBuilder *b = check_builder(o);
    if (b == NULL)
        return NULL;
    scratch_t s;
    if (scratch_get(&s, b->itemsize) == NULL)
        return NULL;
    int rc = push(b, v, s.p);
    scratch_put(&s);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* builder_extend(b, iterable): append every value the iterable yields. On an
 * error the values before the failing one stay appended (as list.extend). */
static PyObject *
bld_extend(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *iterable;
    if (!PyArg_ParseTuple(args, "OO", &o, &iterable))
        return NULL;
    MVBuilder *b = check_builder(o);
    if (b == NULL)
        return NULL;
    Py_ssize_t hint = PyList_Check(iterable) ? PyList_Size(iterable)
                      : PyTuple_Check(iterable) ? PyTuple_Size(iterable) : 0;
    if (hint > 0 && hint <= PY_SSIZE_T_MAX / b->itemsize && room(b, hint * b->itemsize) < 0)
        return NULL;
    PyObject *it = PyObject_GetIter(iterable);
    if (it == NULL)
        return NULL;
    scratch_t s;
    if (scratch_get(&s, b->itemsize) == NULL) {
        Py_DECREF(it);
        return NULL;
    }
    PyObject *v;
    int rc = 0;
    const Py_ssize_t isz = b->itemsize;
    /* the iterator's own next function, called directly (PyIter_Next's work,
     * without a call per item into it) */
    iternextfunc next = (iternextfunc)PyType_GetSlot(Py_TYPE(it), Py_tp_iternext);
    while ((v = next(it)) != NULL) {
        /* The fast path: room first, then a conversion that runs no Python
         * code straight into the builder's memory. */
        if (b->cap - b->len < isz && room(b, isz) < 0) {
            Py_DECREF(v);
            rc = -1;
            break;
        }
        rc = mv_builder_convert_exact(b, v, b->data + b->len);
        if (rc == 0)
            b->len += isz;
        else if (rc > 0)
            rc = push(b, v, s.p);
        Py_DECREF(v);
        if (rc < 0)
            break;
    }
    scratch_put(&s);
    Py_DECREF(it);
    if (rc == 0 && PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_StopIteration))
        PyErr_Clear(); /* the end, as PyIter_Next would say it */
    if (rc < 0 || PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* builder_extend_buffer(b, obj): append the items of a buffer whose item format
 * is the builder's (the facade checks that), in C order, by one copy */
static PyObject *
bld_extend_buffer(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *obj;
    if (!PyArg_ParseTuple(args, "OO", &o, &obj))
        return NULL;
    MVBuilder *b = check_builder(o);
    if (b == NULL)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FULL_RO) < 0)
        return NULL;
    if (view.itemsize != b->itemsize) {
        PyErr_Format(PyExc_TypeError, "memview: a buffer of %zd-byte items cannot extend a builder of %S",
                     view.itemsize, b->dtype);
        PyBuffer_Release(&view);
        return NULL;
    }
    if (room(b, view.len) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    char *dst = b->data + b->len;
    int rc = 0;
    if (PyBuffer_IsContiguous(&view, 'C')) {
        b->busy++;
        NOGIL(view.len >= MV_NOGIL_MIN, memcpy(dst, view.buf, (size_t)view.len));
        b->busy--;
    } else {
        rc = PyBuffer_ToContiguous(dst, &view, view.len, 'C');
    }
    if (rc == 0)
        b->len += view.len;
    PyBuffer_Release(&view);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* builder_reserve(b, n): room for n more items */
static PyObject *
bld_reserve(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "On", &o, &n))
        return NULL;
    MVBuilder *b = check_builder(o);
    if (b == NULL)
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "memview: Builder.reserve: the count must not be negative");
        return NULL;
    }
    if (n > PY_SSIZE_T_MAX / b->itemsize) {
        PyErr_SetString(PyExc_MemoryError, "memview: Builder.reserve: too many items");
        return NULL;
    }
    if (room(b, n * b->itemsize) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* builder_finish(b, shrink_to_fit) -> Array of the items; the builder is empty again */
static PyObject *
bld_finish(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o;
    int shrink;
    if (!PyArg_ParseTuple(args, "Op", &o, &shrink))
        return NULL;
    MVBuilder *b = check_builder(o);
    if (b == NULL || mv_check_go() < 0)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc = mv_go_builder_finish(b->handle, b->len, shrink, &m, &e);
    if (rc != 0)
        return mv_raise(&e);
    b->data = NULL;
    b->len = b->cap = 0;
    return mv_new_array(&m, NULL);
}

/* builder_new(dtype: str, pool: int, packer) -> Builder */
static PyObject *
bld_new(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *dtype, *pool_o, *packer;
    if (!PyArg_ParseTuple(args, "UOO", &dtype, &pool_o, &packer))
        return NULL;
    unsigned long long pool;
    if (mv_pool_arg(pool_o, &pool) < 0)
        return NULL;
    if (!PyCallable_Check(packer)) {
        PyErr_SetString(PyExc_TypeError, "memview: builder_new needs a packer");
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8AndSize(dtype, NULL);
    if (name == NULL)
        return NULL;
    uintptr_t h = 0;
    int64_t itemsize = 0;
    mv_err e;
    if (mv_go_builder_new((char *)name, pool, &h, &itemsize, &e) != 0)
        return mv_raise(&e);
    PyTypeObject *tp = (PyTypeObject *)(mv_builder_type ? mv_builder_type : mv_builder_base_type);
    allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    MVBuilder *b = (MVBuilder *)alloc(tp, 0);
    if (b == NULL) {
        mv_go_builder_drop(h, NULL);
        return NULL;
    }
    b->handle = h;
    b->itemsize = (Py_ssize_t)itemsize;
    b->kind = mv_builder_kind(name);
    Py_INCREF(dtype);
    b->dtype = dtype;
    Py_INCREF(packer);
    b->packer = packer;
    if (b->itemsize <= 0) { /* a zero-size item would never grow the builder */
        Py_DECREF(b);
        PyErr_Format(PyExc_TypeError, "memview: cannot build arrays of %S (items of size 0)", dtype);
        return NULL;
    }
    return (PyObject *)b;
}

/* builder_release(b): give the memory back now (the builder is unusable after) */
static PyObject *
bld_release(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (!mv_is_builder(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Builder is required");
        return NULL;
    }
    MVBuilder *b = (MVBuilder *)o;
    if (b->handle == 0)
        Py_RETURN_NONE;
    if (b->busy > 0) {
        PyErr_SetString(PyExc_BufferError, "memview: the builder is in use by another thread");
        return NULL;
    }
    if (mv_check_go() < 0)
        return NULL;
    uintptr_t h = b->handle;
    b->handle = 0;
    b->data = NULL;
    b->len = b->cap = 0;
    mv_err e;
    if (mv_go_builder_drop(h, &e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

static void
builder_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    MVBuilder *b = BL;
    if (b->handle != 0) {
        uintptr_t h = b->handle;
        b->handle = 0;
        if (mv_go_usable())
            mv_go_builder_drop(h, NULL);
    }
    Py_CLEAR(b->dtype);
    Py_CLEAR(b->packer);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

static Py_ssize_t
builder_length(PyObject *self)
{
    return BL->itemsize ? BL->len / BL->itemsize : 0;
}

static PyObject *get_dtype(PyObject *self, void *c)
{
    (void)c;
    PyObject *d = BL->dtype ? BL->dtype : Py_None;
    Py_INCREF(d);
    return d;
}
static PyObject *get_itemsize(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromSsize_t(BL->itemsize); }
static PyObject *get_nbytes(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromSsize_t(BL->len); }
static PyObject *get_capacity(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromSsize_t(BL->itemsize ? BL->cap / BL->itemsize : 0);
}
static PyObject *get_released(PyObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(BL->handle == 0); }

static PyGetSetDef builder_getset[] = {
    {"dtype", get_dtype, NULL, "The item type.", NULL},
    {"itemsize", get_itemsize, NULL, "Bytes per item.", NULL},
    {"nbytes", get_nbytes, NULL, "Bytes appended so far.", NULL},
    {"capacity", get_capacity, NULL, "Items the builder holds before it grows.", NULL},
    {"released", get_released, NULL, "True once release() has been called.", NULL},
    {NULL},
};

static PyType_Slot builder_slots[] = {
    {Py_tp_dealloc, builder_dealloc},
    {Py_tp_getset, builder_getset},
    {Py_mp_length, builder_length},
    {Py_tp_doc, "Base of memview.Builder: builds a 1-D array item by item."},
    {0, NULL},
};

static PyType_Spec builder_spec = {
    .name = "memview._core.BuilderBase",
    .basicsize = sizeof(MVBuilder),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = builder_slots,
};

/* set_builder_type(cls): the facade's Builder subclass, used for every new builder */
static PyObject *
bld_set_type(PyObject *mod, PyObject *cls)
{
    (void)mod;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)mv_builder_base_type)) {
        PyErr_SetString(PyExc_TypeError, "memview: set_builder_type needs a subclass of BuilderBase");
        return NULL;
    }
    PyObject *old = mv_builder_type;
    Py_INCREF(cls);
    mv_builder_type = cls;
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef builder_methods[] = {
    {"builder_new", bld_new, METH_VARARGS, "builder_new(dtype, pool, packer) -> Builder"},
    {"builder_append", bld_append, METH_VARARGS, "builder_append(b, value)"},
    {"builder_extend", bld_extend, METH_VARARGS, "builder_extend(b, iterable)"},
    {"builder_extend_buffer", bld_extend_buffer, METH_VARARGS, "builder_extend_buffer(b, obj): one copy"},
    {"builder_reserve", bld_reserve, METH_VARARGS, "builder_reserve(b, n)"},
    {"builder_finish", bld_finish, METH_VARARGS, "builder_finish(b, shrink_to_fit) -> Array"},
    {"builder_release", bld_release, METH_O, "builder_release(b)"},
    {"set_builder_type", bld_set_type, METH_O, "set_builder_type(cls)"},
    {NULL},
};

int
mv_install_builder(PyObject *mod)
{
    if (mv_builder_base_type == NULL) {
        mv_builder_base_type = PyType_FromSpec(&builder_spec);
        if (mv_builder_base_type == NULL)
            return -1;
    }
    Py_INCREF(mv_builder_base_type);
    if (PyModule_AddObject(mod, "BuilderBase", mv_builder_base_type) < 0) {
        Py_DECREF(mv_builder_base_type);
        return -1;
    }
    return PyModule_AddFunctions(mod, builder_methods);
}
