/*
 * ops_create.c — mv.empty, mv.zeros and Array.copy for small host arrays, made in
 * C from a block of the creation cache (core_blocks.c) with no Go call.
 *
 * The fast path takes the everyday arguments: a shape (an int or a tuple of
 * ints), a dtype (anything memview accepts: the item type is resolved once,
 * by Go, and cached by name and by the object given), order 'C' or 'F', the
 * CPU and the default pool, and at most MV_BLOCK_MAX bytes. Everything else —
 * other devices, pools, large or empty arrays, and every bad argument — goes
 * to the Python function the facade registered (set_create_fallbacks), which
 * makes the array through Go and raises the errors. An array made here gets a
 * Go handle only when Go code is handed it (core_owner.c mv_array_handle: Go then
 * adopts the block).
 */
#include "ops.h"

#define NIDENT 16
/* What mv.empty makes for a dtype argument, by the object given (strong
 * refs): its answer in the one cache (ops_dtype.c), while mv_ask_gen is gen. */
static struct {
    PyObject *key;
    const mv_item *item;
    unsigned gen;
} ident[NIDENT];
static int nident, ident_next;
static const mv_item *float64_item; /* a basic dtype's: kept for good */
static PyObject *empty_fallback, *zeros_fallback, *copy_fallback, *dtype_spec;

/* create_item is Go's answer for what mv.empty makes for a dtype name, or
 * NULL (no exception) when Go refuses the name or cannot be asked. */
static const mv_item *
create_item(PyObject *name)
{
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL || (size_t)n != strlen(s)) { /* an embedded NUL: the slow path refuses it */
        PyErr_Clear();
        return NULL;
    }
    return mv_ask(MV_ASK_CREATE, s, n, 0);
}

/* resolve_dtype returns the answer for a dtype argument (NULL or None:
 * float64), or NULL without an exception when the slow path must decide. */
static const mv_item *
resolve_dtype(PyObject *o)
{
    if (o == NULL || o == Py_None) {
        if (float64_item == NULL)
            float64_item = mv_ask(MV_ASK_CREATE, "float64", 7, 0);
        return float64_item;
    }
    for (int k = 0; k < nident; k++)
        if (ident[k].key == o && ident[k].gen == mv_ask_gen)
            return ident[k].item;
    PyObject *name;
    if (PyUnicode_CheckExact(o)) {
        name = Py_NewRef(o);
    } else {
        if (dtype_spec == NULL)
            return NULL;
        name = PyObject_CallFunctionObjArgs(dtype_spec, o, NULL);
        if (name == NULL || !PyUnicode_CheckExact(name)) {
            Py_XDECREF(name);
            PyErr_Clear();
            return NULL;
        }
    }
    int slot = -1;
    for (int k = 0; k < nident && slot < 0; k++)
        if (ident[k].key == o) /* remembered before the cache dropped its answer */
            slot = k;
    if (slot < 0)
        slot = nident < NIDENT ? nident++ : ident_next++ % NIDENT;
    /* the slot is emptied first: letting go of its object may run other code */
    PyObject *old = ident[slot].key;
    ident[slot].key = NULL;
    Py_XDECREF(old);
    const mv_item *it = create_item(name);
    Py_DECREF(name); /* a str: runs no other code */
    if (it != NULL) {
        ident[slot].key = Py_NewRef(o);
        ident[slot].item = it;
        ident[slot].gen = mv_ask_gen;
    }
    return it;
}

/* shape_arg reads an int or a tuple of ints, each >= 0; ndim, or -1 (no
 * exception) for anything else. */
static int
shape_arg(PyObject *o, Py_ssize_t *shape)
{
    if (PyLong_CheckExact(o)) {
        shape[0] = PyLong_AsSsize_t(o);
        if (shape[0] < 0) {
            PyErr_Clear();
            return -1;
        }
        return 1;
    }
    if (!PyTuple_CheckExact(o))
        return -1;
    Py_ssize_t n = PyTuple_Size(o);
    if (n > MV_MAXDIM)
        return -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyTuple_GetItem(o, k);
        if (!PyLong_CheckExact(x) || (shape[k] = PyLong_AsSsize_t(x)) < 0) {
            PyErr_Clear();
            return -1;
        }
    }
    return (int)n;
}

/* short16_of: a's format and dtype are held inline, so 16 bytes of each (and
 * of its typestr) may be read: a copy of them is a whole copy. */
static int
short16_of(const MVArray *a)
{
    return a->format == a->fmt_inline && a->dtype == a->dtype_inline;
}

/* made_item is what a copy of a is made of: the item type memview gives new
 * arrays of a's layout (Go's DType.Normal, spelled as NumPy and struct read it,
 * not as a's exporter wrote it): a's own items (put in *own) where a already
 * has that spelling, else the creation answer for its dtype name, or, in a
 * forked child whose parent never asked, a's own items too. */
static const mv_item *
made_item(const MVArray *a, mv_item *own)
{
    const mv_item *f = a->normal ? NULL : mv_ask(MV_ASK_CREATE, a->dtype, (Py_ssize_t)strlen(a->dtype), 0);
    if (f != NULL)
        return f;
    *own = (mv_item){.itemsize = a->itemsize, .format = a->format, .dtype = a->dtype, .runs = a->runs,
                     .normal = a->normal, .short16 = short16_of(a)};
    memcpy(own->typestr, a->typestr, sizeof own->typestr);
    return own;
}

/* block_array makes an array of the given layout over a new block (contiguous
 * in order 'C' or 'F', or with the dense strides given); NULL without an
 * exception when the cache cannot serve it (too large, empty, a pool it does not
 * serve). In a forked child (go_fork.c) it serves any size: a block of the cache if
 * it has one free, else a mapping of the child's own (block_gen 0, unmapped when
 * the array goes: core_blocks.c). Its memory is zero-filled unless zero is 0,
 * for a destination the caller writes whole at once (a copy's). */
static MVArray *
block_array(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, char order, const mv_item *f, int zero)
{
    Py_ssize_t itemsize = f->itemsize, nbytes = itemsize;
    for (int k = 0; k < nd; k++)
        if (__builtin_mul_overflow(nbytes, shape[k], &nbytes)) {
            if (!mv_go_usable())
                PyErr_SetString(PyExc_ValueError, "memview: array is too big");
            return NULL;
        }
    int cached = nbytes > 0 && nbytes <= MV_BLOCK_MAX;
    if (!cached && mv_go_usable())
        return NULL;
    Py_ssize_t st[MV_MAXDIM], sd = itemsize;
    for (int i = 0; i < nd; i++) {
        int k = order == 'F' ? i : nd - 1 - i;
        st[k] = strides ? strides[k] : sd;
        sd *= shape[k];
    }
    unsigned gen = mv_block_gen;
    void *p = cached ? mv_block_take(nbytes, zero) : NULL;
    if (p == NULL && !PyErr_Occurred() && !mv_go_usable()) {
        p = mv_child_map(nbytes);
        gen = 0;
    }
    if (p == NULL)
        return NULL; /* with an exception where Go failed */
    mv_desc d = {
        .buf = p,
        .ndim = nd,
        .shape = shape,
        .strides = st,
        .itemsize = itemsize,
        .format = f->format,
        .dtype = f->dtype,
        .typestr = f->typestr,
        .runs = f->runs,
        .normal = f->normal,
        .device_kind = MV_DEV_CPU,
        .device = "cpu",
        .short16 = f->short16,
    };
    MVArray *a = mv_array_new(&d);
    if (a == NULL) {
        mv_block_give(p, nbytes, gen);
        return NULL;
    }
    mv_own_block(a, p, gen); /* owned from here on */
    return a;
}

/* out_of_memory_or_none: after the cache could not make an array, whether the
 * slow path should be tried: no exception was set, or the memory ran out (it is
 * cleared: the slow path tries once more through Go, and says in NumPy's words
 * what could not be allocated if that fails too). */
static int
out_of_memory_or_none(void)
{
    if (!PyErr_Occurred())
        return 1;
    if (!PyErr_ExceptionMatches(PyExc_MemoryError))
        return 0;
    PyErr_Clear();
    return 1;
}

/* slow calls fn(*args, **kwargs) as given to a METH_FASTCALL function. */
static PyObject *
slow(PyObject *fn, PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (fn == NULL) {
        PyErr_SetString(PyExc_SystemError, "memview: the creation functions' Python fallbacks are not set");
        return NULL;
    }
    Py_ssize_t off = self != NULL;
    PyObject *t = PyTuple_New(nargs + off), *kw = NULL, *r = NULL;
    if (t == NULL)
        return NULL;
    if (self != NULL) {
        Py_INCREF(self);
        PyTuple_SetItem(t, 0, self);
    }
    for (Py_ssize_t k = 0; k < nargs; k++) {
        Py_INCREF(args[k]);
        PyTuple_SetItem(t, k + off, args[k]);
    }
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    if (nkw > 0) {
        if ((kw = PyDict_New()) == NULL)
            goto done;
        for (Py_ssize_t k = 0; k < nkw; k++)
            if (PyDict_SetItem(kw, PyTuple_GetItem(kwnames, k), args[nargs + k]) < 0)
                goto done;
    }
    r = PyObject_Call(fn, t, kw);
done:
    Py_DECREF(t);
    Py_XDECREF(kw);
    return r;
}

static int
is_ascii(PyObject *o, const char *s)
{
    return PyUnicode_CheckExact(o) && PyUnicode_CompareWithASCIIString(o, s) == 0;
}

/* kwarg_index names a keyword of empty/zeros: 0 shape .. 4 pool, -1 other. */
static int
kwarg_index(PyObject *kw)
{
    static const char *names[] = {"shape", "dtype", "order", "device", "pool"};
    for (int k = 0; k < 5; k++)
        if (PyUnicode_CompareWithASCIIString(kw, names[k]) == 0)
            return k;
    return -1;
}

static PyObject *
create(PyObject *fallback, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *v[5] = {NULL, NULL, NULL, NULL, NULL};
    if (nargs > 2)
        return slow(fallback, NULL, args, nargs, kwnames);
    for (Py_ssize_t k = 0; k < nargs; k++)
        v[k] = args[k];
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        int i = kwarg_index(PyTuple_GetItem(kwnames, k));
        if (i < 0 || v[i] != NULL) /* unknowns and repeats: the slow path says */
            return slow(fallback, NULL, args, nargs, kwnames);
        v[i] = args[nargs + k];
    }
    if (v[0] == NULL) /* no shape: the slow path says */
        return slow(fallback, NULL, args, nargs, kwnames);
    char order = 'C';
    if (v[2] != NULL) {
        if (is_ascii(v[2], "F"))
            order = 'F';
        else if (!is_ascii(v[2], "C"))
            return slow(fallback, NULL, args, nargs, kwnames);
    }
    if ((v[3] != NULL && !is_ascii(v[3], "cpu")) || (v[4] != NULL && v[4] != Py_None))
        return slow(fallback, NULL, args, nargs, kwnames);
    Py_ssize_t shape[MV_MAXDIM];
    int nd = shape_arg(v[0], shape);
    const mv_item *f = nd < 0 ? NULL : resolve_dtype(v[1]);
    if (f == NULL) {
        PyErr_Clear();
        return slow(fallback, NULL, args, nargs, kwnames);
    }
    MVArray *a = block_array(nd, shape, NULL, order, f, 1);
    if (a != NULL)
        return (PyObject *)a;
    if (!out_of_memory_or_none())
        return NULL;
    return slow(fallback, NULL, args, nargs, kwnames);
}

/* empty(shape, dtype="float64", *, order="C", device="cpu", pool=None) */
static PyObject *
create_empty(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)mod;
    return create(empty_fallback, args, nargs, kwnames);
}

static PyObject *
create_zeros(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)mod;
    return create(zeros_fallback, args, nargs, kwnames);
}

/* Array.copy(order="C", *, stream=None, pool=None): a contiguous host array of
 * at most MV_BLOCK_MAX bytes is copied here into a new block, in the order
 * asked for where the source is already laid out so; the rest goes to the
 * facade's copy (Go). */
/* go_new is a new host array from the default pool, of dtype (a name Go
 * parses) and shape, dense in order 'C' or 'F' (memory beyond a block); NULL
 * with an exception. */
static PyObject *
go_new(int nd, const Py_ssize_t *shape, const char *dtype, char order)
{
    int64_t sh[MV_MAXDIM];
    for (int k = 0; k < nd; k++)
        sh[k] = shape[k];
    mv_meta m;
    mv_err e;
    int rc = mv_go_empty(nd, sh, (char *)dtype, order, NULL, 0, 0, &m, &e);
    return mv_finish_meta(rc, &m, &e, NULL);
}

static PyObject *
array_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    if (nargs > 1 || mv_released(a) || a->device_kind != MV_DEV_CPU)
        return slow(copy_fallback, self, args, nargs, kwnames);
    PyObject *ord = nargs ? args[0] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k), *val = args[nargs + k];
        if (is_ascii(kw, "order") && ord == NULL)
            ord = val;
        else if (!((is_ascii(kw, "stream") || is_ascii(kw, "pool")) && val == Py_None))
            return slow(copy_fallback, self, args, nargs, kwnames);
    }
    char order, req;
    if (ord == NULL || is_ascii(ord, "C"))
        req = 'C';
    else if (is_ascii(ord, "F"))
        req = 'F';
    else if (is_ascii(ord, "A"))
        req = 'A';
    else if (is_ascii(ord, "K"))
        req = 'K';
    else
        return slow(copy_fallback, self, args, nargs, kwnames);
    order = req == 'C' || req == 'F' ? req : a->f_contig && !a->c_contig ? 'F' : 'C';
    Py_ssize_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    for (int k = 0; k < a->ndim; k++)
        shape[k] = a->shape[k];
    int dense = order == 'C' ? a->c_contig : a->f_contig;
    if (!dense && mv_host_order_strides(a, req, strides) < 0) /* any other layout: copied item by item */
        return NULL;
    mv_item own;
    const mv_item *item = made_item(a, &own);
    MVArray *c = block_array(a->ndim, shape, dense ? NULL : strides, dense ? order : 'C', item, 0);
    if (c == NULL) {
        if (!out_of_memory_or_none())
            return NULL;
        if (!mv_go_usable() || (!dense && req == 'K'))
            return slow(copy_fallback, self, args, nargs, kwnames);
        /* larger than a block: Go gives the memory, C copies */
        c = (MVArray *)go_new(a->ndim, shape, item->dtype, order);
        if (c == NULL)
            return NULL;
        a->busy++;
        NOGIL(a->len >= MV_NOGIL_MIN,
              dense ? (void)memcpy(c->buf, a->buf, (size_t)a->len)
                    : mv_host_copy(c->buf, c->strides, a->buf, a->strides, a->shape, a->ndim, a->itemsize, NULL));
        a->busy--;
        return (PyObject *)c;
    }
    if (dense)
        memcpy(c->buf, a->buf, (size_t)a->len);
    else /* new memory: whole items */
        mv_host_copy(c->buf, c->strides, a->buf, a->strides, a->shape, a->ndim, a->itemsize, NULL);
    return (PyObject *)c;
}

/* Array.tobytes(order='C'): the elements' bytes in C ('C'), Fortran ('F') or
 * memory ('A') order, as memoryview.tobytes gives them (a device array's are
 * copied to the host first). */
static PyObject *
array_tobytes(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    PyObject *ord = nargs ? args[0] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    if (nargs > 1 || nkw > 1 || (nkw == 1 && (nargs == 1 || !is_ascii(PyTuple_GetItem(kwnames, 0), "order")))) {
        PyErr_SetString(PyExc_TypeError, "memview: tobytes() takes one argument, order");
        return NULL;
    }
    if (nkw == 1)
        ord = args[nargs];
    char order = 'C';
    if (ord != NULL && !is_ascii(ord, "C")) {
        if (is_ascii(ord, "F"))
            order = 'F';
        else if (is_ascii(ord, "A"))
            order = a->f_contig && !a->c_contig ? 'F' : 'C';
        else {
            PyErr_Format(PyExc_ValueError, "memview: order must be 'C', 'F' or 'A', not %R", ord);
            return NULL;
        }
    }
    if (mv_check_live(a) < 0)
        return NULL;
    if (a->device_kind != MV_DEV_CPU) { /* through a host copy */
        PyObject *h = PyObject_CallMethod(self, "to", "s", "cpu");
        if (h == NULL)
            return NULL;
        PyObject *r = array_tobytes(h, args, nargs, kwnames);
        PyObject *rel = PyObject_CallMethod(h, "release", NULL);
        Py_XDECREF(rel);
        Py_DECREF(h);
        if (rel == NULL)
            Py_CLEAR(r);
        return r;
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, a->len);
    if (b == NULL)
        return NULL;
    char *out = PyBytes_AsString(b);
    if (a->len == 0)
        return b;
    if ((order == 'C' && a->c_contig) || (order == 'F' && a->f_contig)) {
        NOGIL(a->len >= MV_NOGIL_MIN, memcpy(out, a->buf, (size_t)a->len));
        return b;
    }
    Py_ssize_t ds[MV_MAXDIM], sd = a->itemsize;
    for (int i = 0; i < a->ndim; i++) {
        int k = order == 'C' ? a->ndim - 1 - i : i;
        ds[k] = sd;
        sd *= a->shape[k];
    }
    a->busy++;
    NOGIL(a->len >= MV_NOGIL_MIN,
          mv_host_copy(out, ds, a->buf, a->strides, a->shape, a->ndim, a->itemsize, NULL));
    a->busy--;
    return b;
}

/* ---- a forked child (go_fork.c): arrays of any size without Go ---- */

/* mv_child_empty makes a zero-filled host array of dtype (a name the parent
 * resolved: the table above) in order 'C' or 'F'. */
PyObject *
mv_child_empty(int nd, const Py_ssize_t *shape, const char *dtype, char order)
{
    const mv_item *f = mv_ask(MV_ASK_CREATE, dtype, (Py_ssize_t)strlen(dtype), 0);
    if (f == NULL) {
        char what[160];
        PyOS_snprintf(what, sizeof what, "the dtype %.100s, which this process's parent never made,", dtype);
        return mv_raise_forked(what);
    }
    if (order != 'C' && order != 'F') {
        PyErr_Format(PyExc_ValueError, "memview: order must be 'C' or 'F', not '%c'", order);
        return NULL;
    }
    return (PyObject *)block_array(nd, shape, NULL, order, f, 1);
}

const char *
mv_known_format(const char *dtype)
{
    const mv_item *f = mv_ask(MV_ASK_CREATE, dtype, (Py_ssize_t)strlen(dtype), 0);
    return f == NULL ? NULL : f->format;
}

/* mv_child_copy makes a copy of the host array a in order 'C', 'F', 'A' or 'K'. */
PyObject *
mv_child_copy(MVArray *a, char order)
{
    Py_ssize_t strides[MV_MAXDIM];
    if (mv_host_order_strides(a, order, strides) < 0)
        return NULL;
    mv_item own;
    MVArray *c = block_array(a->ndim, a->shape, strides, 'C', made_item(a, &own), 0);
    if (c == NULL)
        return NULL;
    int rc;
    NOGIL(a->len >= MV_NOGIL_MIN, rc = mv_host_assign(c->buf, c->strides, a->buf, a->strides, a->shape, a->ndim,
                                                       a->itemsize, NULL)); /* new memory: whole items */
    if (rc < 0) {
        Py_DECREF(c);
        return NULL;
    }
    return (PyObject *)c;
}

PyMethodDef mv_create_methods[] = {
    {"tobytes", (PyCFunction)(void (*)(void))array_tobytes, METH_FASTCALL | METH_KEYWORDS,
     "tobytes($self, /, order='C')\n--\n\n"
     "The elements' bytes in C ('C'), Fortran ('F') or memory ('A') order (a copy)."},
    {"copy", (PyCFunction)(void (*)(void))array_copy, METH_FASTCALL | METH_KEYWORDS,
     "copy($self, /, order='C', *, stream=None, pool=None)\n--\n\n"
     "A deep copy in new Go-owned memory on the same device (from pool, a memview.Pool\n"
     "there; default: the default pool), laid out in order 'C', 'F', 'A' or 'K' (on a\n"
     "CUDA device 'K' is taken as 'A')."},
    {NULL},
};

/* empty_as(a, shape): a new zero-filled host array of a's items (as a copy of a
 * would have them) and shape, C-ordered: from the block cache, or Go's pool, or
 * in a forked child memory of its own; the facade's temporaries of converted
 * values (memview/_assign.py), so that they need no dtype Go must read. */
static PyObject *
core_empty_as(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *t;
    if (!PyArg_ParseTuple(args, "OO", &o, &t))
        return NULL;
    if (!mv_is_array(o) || ((MVArray *)o)->device_kind != MV_DEV_CPU) {
        PyErr_SetString(PyExc_TypeError, "memview: empty_as needs a host memview.Array");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    int64_t sh[MV_MAXDIM];
    int nd = mv_int64_tuple(t, sh, "shape");
    if (nd < 0)
        return NULL;
    Py_ssize_t shape[MV_MAXDIM];
    for (int k = 0; k < nd; k++) {
        if (sh[k] < 0) {
            PyErr_SetString(PyExc_ValueError, "memview: negative dimensions are not allowed");
            return NULL;
        }
        shape[k] = (Py_ssize_t)sh[k];
    }
    mv_item own;
    const mv_item *item = made_item(a, &own);
    MVArray *c = block_array(nd, shape, NULL, 'C', item, 0);
    if (c != NULL) {
        memset(c->buf, 0, (size_t)c->len);
        return (PyObject *)c;
    }
    if (!out_of_memory_or_none())
        return NULL;
    if (!mv_go_usable()) /* a forked child's block_array serves any size: out of memory */
        return PyErr_NoMemory();
    return go_new(nd, shape, item->dtype, 'C');
}

/* set_create_fallbacks(empty, zeros, copy, dtype_spec): the facade's Python
 * functions for what the fast paths do not take, and the dtype spelling Go reads */
static PyObject *
set_create_fallbacks(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *e, *z, *c, *s;
    if (!PyArg_ParseTuple(args, "OOOO", &e, &z, &c, &s))
        return NULL;
    PyObject *old[4] = {empty_fallback, zeros_fallback, copy_fallback, dtype_spec};
    Py_INCREF(e);
    Py_INCREF(z);
    Py_INCREF(c);
    Py_INCREF(s);
    empty_fallback = e;
    zeros_fallback = z;
    copy_fallback = c;
    dtype_spec = s;
    for (int k = 0; k < 4; k++)
        Py_XDECREF(old[k]);
    Py_RETURN_NONE;
}

/* The facade's mv.empty and mv.zeros: named so, with the facade's module, and
 * added to memview._core as empty_fast and zeros_fast (_core.empty is the Go
 * path the facade uses itself). */
static PyMethodDef create_functions[] = {
    {"empty", (PyCFunction)(void (*)(void))create_empty, METH_FASTCALL | METH_KEYWORDS,
     "empty(shape, dtype='float64', *, order='C', device='cpu', pool=None)\n--\n\n"
     "A new array in Go-owned memory (never moves, zero-filled) on device: \"cpu\"\n"
     "(64-byte aligned host memory), \"cuda\" / \"cuda:N\" (device memory), \"cuda_host\"\n"
     "(pinned host memory) or \"cuda_managed[:N]\" (managed memory). pool (a\n"
     "memview.Pool on that device) chooses where the memory comes from; the default\n"
     "is the default pool (or the device's)."},
    {"zeros", (PyCFunction)(void (*)(void))create_zeros, METH_FASTCALL | METH_KEYWORDS,
     "zeros(shape, dtype='float64', *, order='C', device='cpu', pool=None)\n--\n\n"
     "A new zero-filled array in Go-owned memory (see empty)."},
    {NULL},
};

static PyMethodDef create_setters[] = {
    {"set_create_fallbacks", set_create_fallbacks, METH_VARARGS,
     "set_create_fallbacks(empty, zeros, copy, dtype_spec)"},
    {"empty_as", core_empty_as, METH_VARARGS,
     "empty_as(a, shape): a new zero-filled C-ordered host array of a's items (the facade's temporaries)"},
    {NULL},
};

/* The dtypes a forked child can make arrays of without having seen them in its
 * parent: every basic one (a child cannot ask Go for more). */
int
mv_install_create(PyObject *mod)
{
    static const char *attrs[] = {"empty_fast", "zeros_fast"};
    PyObject *modname = PyUnicode_FromString("memview");
    if (modname == NULL)
        return -1;
    for (int k = 0; k < 2; k++) {
        PyObject *fn = PyCFunction_NewEx(&create_functions[k], NULL, modname);
        if (fn == NULL || PyModule_AddObject(mod, attrs[k], fn) < 0) {
            Py_XDECREF(fn);
            Py_DECREF(modname);
            return -1;
        }
    }
    Py_DECREF(modname);
    return PyModule_AddFunctions(mod, create_setters);
}
