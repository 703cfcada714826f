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
#include "dtypes_table.h"

/* What mv.empty makes for one dtype: Go's answer for the name (mv_go_create_info). */
typedef struct {
    Py_ssize_t itemsize;
    char *format; /* PyMem */
    char *dtype;  /* PyMem */
    char typestr[16];
} create_info;

#define NINFO 64
#define NIDENT 16
static create_info infos[NINFO];
static int ninfo;
static PyObject *info_by_name;                       /* str -> index into infos */
static struct { PyObject *key; int idx; } ident[NIDENT]; /* by the object given (strong refs) */
static int nident, ident_next;
static int float64_idx = -1;
static PyObject *empty_fallback, *zeros_fallback, *copy_fallback, *dtype_spec;

/* info_for_name returns the index of name's entry, asking Go on a miss; -1
 * (no exception) when Go refuses the name or the table is full. */
static int
info_for_name(PyObject *name)
{
    if (info_by_name == NULL && (info_by_name = PyDict_New()) == NULL) {
        PyErr_Clear();
        return -1;
    }
    PyObject *v = PyDict_GetItemWithError(info_by_name, name);
    if (v != NULL)
        return (int)PyLong_AsLong(v);
    if (PyErr_Occurred() || ninfo == NINFO) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL || (size_t)n != strlen(s)) { /* an embedded NUL: the slow path refuses it */
        PyErr_Clear();
        return -1;
    }
    mv_meta m;
    mv_err e;
    if (!mv_go_usable()) /* a child forked while Go was busy: the slow path raises */
        return -1;
    if (mv_go_create_info((char *)s, &m, &e) != 0)
        return -1;
    create_info *f = &infos[ninfo];
    f->format = m.long_format ? mv_pymem_strdup(m.long_format) : mv_pymem_strdup(m.format);
    f->dtype = m.long_dtype ? mv_pymem_strdup(m.long_dtype) : mv_pymem_strdup(m.dtype);
    free(m.long_format);
    free(m.long_dtype);
    if (f->format == NULL || f->dtype == NULL) {
        PyMem_Free(f->format);
        PyMem_Free(f->dtype);
        return -1;
    }
    f->itemsize = (Py_ssize_t)m.itemsize;
    memcpy(f->typestr, m.typestr, sizeof f->typestr);
    f->typestr[sizeof f->typestr - 1] = 0;
    /* The entry is taken before the dict may run other code (a collection
     * making arrays of its own); if the dict fails it stays unused. */
    int k = ninfo++;
    PyObject *idx = PyLong_FromLong(k);
    if (idx == NULL || PyDict_SetItem(info_by_name, name, idx) < 0) {
        Py_XDECREF(idx);
        PyErr_Clear();
        return -1;
    }
    Py_DECREF(idx);
    return k;
}

/* resolve_dtype returns the entry for a dtype argument (NULL or None:
 * float64), or -1 without an exception when the slow path must decide. */
static int
resolve_dtype(PyObject *o)
{
    if (o == NULL || o == Py_None) {
        if (float64_idx < 0) {
            PyObject *n = PyUnicode_FromString("float64");
            if (n == NULL) {
                PyErr_Clear();
                return -1;
            }
            float64_idx = info_for_name(n);
            Py_DECREF(n);
        }
        return float64_idx;
    }
    for (int k = 0; k < nident; k++)
        if (ident[k].key == o)
            return ident[k].idx;
    int idx;
    if (PyUnicode_CheckExact(o)) {
        idx = info_for_name(o);
    } else {
        if (dtype_spec == NULL)
            return -1;
        PyObject *name = PyObject_CallFunctionObjArgs(dtype_spec, o, NULL);
        if (name == NULL || !PyUnicode_CheckExact(name)) {
            Py_XDECREF(name);
            PyErr_Clear();
            return -1;
        }
        idx = info_for_name(name);
        Py_DECREF(name);
    }
    if (idx < 0)
        return -1;
    int slot = nident < NIDENT ? nident++ : ident_next++ % NIDENT;
    PyObject *old = slot < nident ? ident[slot].key : NULL;
    Py_INCREF(o);
    ident[slot].key = o;
    ident[slot].idx = idx;
    Py_XDECREF(old);
    return idx;
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

/* block_array makes an array of the given layout over a new block (contiguous
 * in order 'C' or 'F', or with the dense strides given); NULL without an
 * exception when the cache cannot serve it (too large, empty, a pool it does not
 * serve). In a forked child (go_fork.c) it serves any size: a block of the cache if
 * it has one free, else a mapping of the child's own (block_gen 0, unmapped when
 * the array goes: core_blocks.c). */
static MVArray *
block_array(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, char order, Py_ssize_t itemsize,
            const char *format, const char *dtype, const char *typestr)
{
    Py_ssize_t nbytes = itemsize;
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
    void *p = cached ? mv_block_take(nbytes) : NULL;
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
        .format = format,
        .dtype = dtype,
        .typestr = typestr,
        .device_kind = MV_DEV_CPU,
        .device = "cpu",
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
    if (nargs < 1 || nargs > 2)
        return slow(fallback, NULL, args, nargs, kwnames);
    for (Py_ssize_t k = 0; k < nargs; k++)
        v[k] = args[k];
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        int i = kwarg_index(PyTuple_GetItem(kwnames, k));
        if (i < 2 || v[i] != NULL) /* positional names, repeats and unknowns: the slow path says */
            return slow(fallback, NULL, args, nargs, kwnames);
        v[i] = args[nargs + k];
    }
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
    int idx = nd < 0 ? -1 : resolve_dtype(v[1]);
    if (idx < 0) {
        PyErr_Clear();
        return slow(fallback, NULL, args, nargs, kwnames);
    }
    const create_info *f = &infos[idx];
    MVArray *a = block_array(nd, shape, NULL, order, f->itemsize, f->format, f->dtype, f->typestr);
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
static PyObject *
array_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    if (nargs > 1 || mv_released(a) || a->device_kind != MV_DEV_CPU || a->len > MV_BLOCK_MAX)
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
    char order;
    if (ord == NULL || is_ascii(ord, "C"))
        order = 'C';
    else if (is_ascii(ord, "F"))
        order = 'F';
    else if (is_ascii(ord, "A") || is_ascii(ord, "K"))
        order = a->f_contig && !a->c_contig ? 'F' : 'C';
    else
        return slow(copy_fallback, self, args, nargs, kwnames);
    if (order == 'C' ? !a->c_contig : !a->f_contig)
        return slow(copy_fallback, self, args, nargs, kwnames);
    Py_ssize_t shape[MV_MAXDIM];
    for (int k = 0; k < a->ndim; k++)
        shape[k] = a->shape[k];
    MVArray *c = block_array(a->ndim, shape, NULL, order, a->itemsize, a->format, a->dtype, a->typestr);
    if (c == NULL) {
        if (!out_of_memory_or_none())
            return NULL;
        return slow(copy_fallback, self, args, nargs, kwnames);
    }
    memcpy(c->buf, a->buf, (size_t)a->len);
    return (PyObject *)c;
}

/* ---- a forked child (go_fork.c): arrays of any size without Go ---- */

/* mv_child_empty makes a zero-filled host array of dtype (a name the parent
 * resolved: the table above) in order 'C' or 'F'. */
PyObject *
mv_child_empty(int nd, const Py_ssize_t *shape, const char *dtype, char order)
{
    PyObject *name = PyUnicode_FromString(dtype);
    if (name == NULL)
        return NULL;
    int idx = info_for_name(name);
    Py_DECREF(name);
    if (idx < 0) {
        char what[160];
        PyOS_snprintf(what, sizeof what, "the dtype %.100s, which this process's parent never made,", dtype);
        return mv_raise_forked(what);
    }
    if (order != 'C' && order != 'F') {
        PyErr_Format(PyExc_ValueError, "memview: order must be 'C' or 'F', not '%c'", order);
        return NULL;
    }
    const create_info *f = &infos[idx];
    return (PyObject *)block_array(nd, shape, NULL, order, f->itemsize, f->format, f->dtype, f->typestr);
}

const char *
mv_known_format(const char *dtype)
{
    PyObject *name = PyUnicode_FromString(dtype);
    if (name == NULL) {
        PyErr_Clear();
        return NULL;
    }
    int idx = info_for_name(name);
    Py_DECREF(name);
    return idx < 0 ? NULL : infos[idx].format;
}

/* mv_child_copy makes a copy of the host array a in order 'C', 'F', 'A' or 'K'. */
PyObject *
mv_child_copy(MVArray *a, char order)
{
    Py_ssize_t strides[MV_MAXDIM];
    if (mv_host_order_strides(a, order, strides) < 0)
        return NULL;
    MVArray *c = block_array(a->ndim, a->shape, strides, 'C', a->itemsize, a->format, a->dtype, a->typestr);
    if (c == NULL)
        return NULL;
    int rc;
    NOGIL(a->len >= MV_NOGIL_MIN, rc = mv_host_assign(c->buf, c->strides, a->buf, a->strides, a->shape, a->ndim,
                                                       a->itemsize));
    if (rc < 0) {
        Py_DECREF(c);
        return NULL;
    }
    return (PyObject *)c;
}

PyMethodDef mv_create_methods[] = {
    {"copy", (PyCFunction)(void (*)(void))array_copy, METH_FASTCALL | METH_KEYWORDS,
     "copy($self, /, order='C', *, stream=None, pool=None)\n--\n\n"
     "A deep copy in new Go-owned memory on the same device (from pool, a memview.Pool\n"
     "there; default: the default pool), laid out in order 'C', 'F', 'A' or 'K' (on a\n"
     "CUDA device 'K' is taken as 'A')."},
    {NULL},
};

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
    {NULL},
};

/* The dtypes a forked child can make arrays of without having seen them in its
 * parent: every basic one (a child cannot ask Go for more). */
/* The basic dtypes, by name and by the format NumPy exports them with
 * (dtypes_table.h), and the other spellings of their formats. */
#define MV_DTYPE_NAME(name, kind, itemsize, format, typestr) name,
#define MV_DTYPE_FORMAT(name, kind, itemsize, format, typestr) format,
static const char *const basic_dtypes[] = {MV_BASIC_DTYPES(MV_DTYPE_NAME)};
static const char *const basic_formats[] = {MV_BASIC_DTYPES(MV_DTYPE_FORMAT) "q", "Q"};
#undef MV_DTYPE_NAME
#undef MV_DTYPE_FORMAT
int
mv_install_create(PyObject *mod)
{
    for (size_t k = 0; k < sizeof basic_dtypes / sizeof basic_dtypes[0]; k++) {
        PyObject *n = PyUnicode_FromString(basic_dtypes[k]);
        if (n == NULL)
            return -1;
        int idx = info_for_name(n);
        Py_DECREF(n);
        if (idx < 0) {
            PyErr_Format(PyExc_SystemError, "memview: the Go core does not know the dtype %s", basic_dtypes[k]);
            return -1;
        }
    }
    for (size_t k = 0; k < sizeof basic_formats / sizeof basic_formats[0]; k++) {
        PyObject *n = PyUnicode_FromString(basic_formats[k]);
        if (n == NULL)
            return -1;
        info_for_name(n); /* one Go does not take is left out */
        Py_DECREF(n);
    }
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
