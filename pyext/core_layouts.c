/*
 * core_layouts.c — basic indexing, transpose and reshape computed in C from an
 * array's cached layout: memview's Layout.index, Transpose, Reshape and
 * contiguity rules (memview/index.go, transpose.go, reshape.go, contiguity.go)
 * ported, with their errors in the same words, and checked against them by
 * tests/test_views_c.py over random layouts and keys. This is the one parser of
 * keys: in a parent and in a forked child alike.
 */
#include "core.h"

#define BIG ((Py_ssize_t)1 << 62) /* slice bounds are clamped here: beyond, they mean "to the end" */

static Py_ssize_t
clamp(Py_ssize_t v)
{
    return v < -BIG ? -BIG : v > BIG ? BIG : v;
}

typedef struct {
    int kind; /* 0 int, 1 slice, 2 ellipsis, 3 newaxis */
    Py_ssize_t i, start, stop, step;
} key_item;

/* is_numpy_bool: k is NumPy's bool scalar, which has no __index__ in NumPy 2 */
static int
is_numpy_bool(PyObject *k)
{
    PyObject *name = PyType_GetName(Py_TYPE(k));
    int yes = 0;
    if (name != NULL) {
        yes = PyUnicode_CompareWithASCIIString(name, "bool") == 0 ||
              PyUnicode_CompareWithASCIIString(name, "bool_") == 0;
        Py_DECREF(name);
        if (yes) {
            PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(k), "__module__");
            yes = mod != NULL && PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "numpy") == 0;
            Py_XDECREF(mod);
        }
    }
    PyErr_Clear();
    return yes;
}

static int
refuse_key(PyObject *k)
{
    if (PyBool_Check(k) || is_numpy_bool(k)) {
        PyErr_SetString(PyExc_IndexError, "memview: boolean indexes are not supported (basic indexing only)");
        return 0;
    }
    PyObject *name = PyType_GetName(Py_TYPE(k));
    if (name != NULL) {
        PyErr_Format(PyExc_IndexError,
                     "memview: only integers, slices (`:`), ellipsis (`...`) and None are valid indices, not %R",
                     name);
        Py_DECREF(name);
    }
    return 0;
}

/* parse_item reads one key item: 1, or 0 with the exception (IndexError for
 * what no basic key is, TypeError or ValueError for a bad slice). */
static int
parse_item(PyObject *k, key_item *out)
{
    if (PyLong_Check(k) || (!PyBool_Check(k) && !PySlice_Check(k) && k != Py_None && PyIndex_Check(k))) {
        if (PyBool_Check(k))
            return refuse_key(k);
        PyObject *n = PyLong_CheckExact(k) ? Py_NewRef(k) : PyNumber_Index(k);
        if (n == NULL) {
            /* an __index__ that refuses (NumPy's arrays of more than one
             * element, or not of integers): not a basic index */
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                return refuse_key(k);
            }
            return 0;
        }
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
        if (overflow || v < -BIG || v > BIG) {
            PyErr_Format(PyExc_IndexError, "memview: index %S is out of bounds", n);
            Py_DECREF(n);
            return 0;
        }
        Py_DECREF(n);
        if (v == -1 && PyErr_Occurred())
            return 0;
        out->kind = 0;
        out->i = (Py_ssize_t)v;
        return 1;
    }
    if (PySlice_Check(k)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_SetString(PyExc_TypeError, "memview: slice indices must be integers or None or have an "
                                                 "__index__ method");
            } else if (PyErr_ExceptionMatches(PyExc_ValueError)) {
                PyErr_SetString(PyExc_ValueError, "memview: slice step cannot be zero");
            }
            return 0;
        }
        out->kind = 1;
        out->start = clamp(start);
        out->stop = clamp(stop);
        out->step = clamp(step);
        return 1;
    }
    if (k == Py_Ellipsis) {
        out->kind = 2;
        return 1;
    }
    if (k == Py_None) {
        out->kind = 3;
        return 1;
    }
    return refuse_key(k);
}

/* index_layout applies a basic-indexing key to a's layout as memview's Layout.index
 * does: 1 done (*scalar says whether one element is selected), 0 with the
 * exception Go's rules raise, in their words. */
int
mv_index_layout(const MVArray *a, PyObject *key, mv_layout *out, int *scalar)
{
    key_item items[2 * MV_MAXDIM + 1];
    Py_ssize_t n;
    if (PyTuple_Check(key)) {
        n = PyTuple_Size(key);
        Py_ssize_t parse = n > 2 * MV_MAXDIM + 1 ? 2 * MV_MAXDIM + 1 : n;
        for (Py_ssize_t j = 0; j < n; j++)
            if (!parse_item(PyTuple_GetItem(key, j), &items[j < parse ? j : parse - 1]))
                return 0;
        if (n > parse) { /* more items than any array has axes or may gain */
            int consumed = 0;
            for (Py_ssize_t j = 0; j < n; j++) {
                PyObject *k = PyTuple_GetItem(key, j);
                consumed += k != Py_None && k != Py_Ellipsis;
            }
            if (consumed > a->ndim)
                PyErr_Format(PyExc_IndexError,
                             "memview: too many indices for array: array is %d-dimensional, but %d were indexed",
                             a->ndim, consumed);
            else
                PyErr_Format(PyExc_IndexError,
                             "memview: number of dimensions must be within [0, %d], indexing result would have %zd",
                             MV_MAXDIM, n);
            return 0;
        }
    } else {
        n = 1;
        if (!parse_item(key, &items[0]))
            return 0;
    }
    int consumed = 0, ellipses = 0, ints = 0, newaxes = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        switch (items[j].kind) {
        case 0: consumed++; ints++; break;
        case 1: consumed++; break;
        case 2: ellipses++; break;
        default: newaxes++; break;
        }
    }
    int nd = a->ndim;
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError, "memview: an index can only have a single ellipsis ('...')");
        return 0;
    }
    if (consumed > nd) {
        PyErr_Format(PyExc_IndexError, "memview: too many indices for array: array is %d-dimensional, but %d were "
                                       "indexed", nd, consumed);
        return 0;
    }
    if (nd - ints + newaxes > MV_MAXDIM) {
        PyErr_Format(PyExc_IndexError, "memview: number of dimensions must be within [0, %d], indexing result "
                                       "would have %d", MV_MAXDIM, nd - ints + newaxes);
        return 0;
    }
    out->ndim = 0;
    out->offset = 0;
    int d = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        key_item *x = &items[j];
        switch (x->kind) {
        case 3:
            out->shape[out->ndim] = 1;
            out->strides[out->ndim++] = 0;
            break;
        case 2:
            for (int k = 0; k < nd - consumed; k++, d++) {
                out->shape[out->ndim] = a->shape[d];
                out->strides[out->ndim++] = a->strides[d];
            }
            break;
        case 0: {
            Py_ssize_t len = a->shape[d], i = x->i;
            if (i < -len || i >= len) {
                PyErr_Format(PyExc_IndexError, "memview: index %zd is out of bounds for axis %d with size %zd", i, d,
                             len);
                return 0;
            }
            if (i < 0)
                i += len;
            out->offset += i * a->strides[d];
            d++;
            break;
        }
        default: {
            Py_ssize_t start = x->start, stop = x->stop, step = x->step;
            Py_ssize_t len = PySlice_AdjustIndices(a->shape[d], &start, &stop, step);
            if (len == 0) {
                start = 0; /* as NumPy: an empty slice points at position 0 with step 1 */
                step = 1;
            }
            Py_ssize_t stride;
            /* as memview's mulInt: a product must fit in ±(2**63 - 1) */
            if (__builtin_mul_overflow(step, a->strides[d], &stride) || stride == PY_SSIZE_T_MIN)
                stride = step < 0 ? -a->strides[d] : a->strides[d]; /* one position only */
            out->offset += start * a->strides[d];
            out->shape[out->ndim] = len;
            out->strides[out->ndim++] = stride;
            d++;
            break;
        }
        }
    }
    for (; d < nd; d++) {
        out->shape[out->ndim] = a->shape[d];
        out->strides[out->ndim++] = a->strides[d];
    }
    Py_ssize_t size = 1;
    for (int k = 0; k < out->ndim; k++)
        size *= out->shape[k];
    if (size == 0) {
        /* An empty view keeps an offset inside the parent's reach (else the
         * parent's own). */
        Py_ssize_t imin = 0, imax = 0;
        if (a->len > 0) {
            for (int k = 0; k < nd; k++) {
                Py_ssize_t s = a->strides[k] * (a->shape[k] - 1);
                if (s < 0)
                    imin += s;
                else
                    imax += s;
            }
        }
        if (out->offset < imin || out->offset > imax)
            out->offset = 0;
    }
    *scalar = ellipses == 0 && newaxes == 0 && ints == n && ints == nd;
    return 1;
}

/* seq is a tuple or a list (int_args): its size and borrowed items */
static Py_ssize_t
seq_size(PyObject *seq)
{
    return PyTuple_Check(seq) ? PyTuple_Size(seq) : PyList_Size(seq);
}

static PyObject *
seq_item(PyObject *seq, Py_ssize_t k)
{
    return PyTuple_Check(seq) ? PyTuple_GetItem(seq, k) : PyList_GetItem(seq, k);
}

/* seq_ints reads the n items of seq as integers (operator.index), into v: 0,
 * or -1 with the exception (TypeError for what is not an integer, ValueError
 * for one that does not fit in 64 bits). */
static int
seq_ints(PyObject *seq, Py_ssize_t n, long long *v)
{
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyNumber_Index(seq_item(seq, k));
        if (x == NULL)
            return -1;
        int overflow = 0;
        v[k] = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow)
            PyErr_Format(PyExc_ValueError, "memview: maximum allowed dimension exceeded (%S)", x);
        Py_DECREF(x);
        if (overflow || (v[k] == -1 && PyErr_Occurred()))
            return -1;
    }
    return 0;
}

/* ints_tuple is a tuple of the n integers v, for messages (NULL with MemoryError). */
static PyObject *
ints_tuple(const long long *v, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t k = 0; t != NULL && k < n; k++) {
        PyObject *x = PyLong_FromLongLong(v[k]);
        if (x == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SetItem(t, k, x);
    }
    return t;
}

/* transpose_layout: 1 done, 0 with the exception Go's Transpose raises, in its
 * words. axes NULL (or empty) reverses. */
int
mv_transpose_layout(const MVArray *a, PyObject *axes, mv_layout *out)
{
    int nd = a->ndim, perm[MV_MAXDIM];
    Py_ssize_t n = axes ? seq_size(axes) : 0;
    if (n == 0) {
        for (int k = 0; k < nd; k++)
            perm[k] = nd - 1 - k;
    } else {
        long long v[MV_MAXDIM + 1];
        if (n > MV_MAXDIM) {
            PyErr_Format(PyExc_ValueError, "memview: axes don't match array: %zd axes for an array of %d "
                                           "dimensions", n, nd);
            return 0;
        }
        if (seq_ints(axes, n, v) < 0)
            return 0;
        if (n != nd) {
            PyObject *t = ints_tuple(v, n);
            if (t != NULL)
                PyErr_Format(PyExc_ValueError, "memview: axes don't match array: axes %R for an array of %d "
                                               "dimensions", t, nd);
            Py_XDECREF(t);
            return 0;
        }
        int seen[MV_MAXDIM] = {0};
        for (int k = 0; k < nd; k++) {
            long long x = v[k];
            if (x < -nd || x >= nd) {
                PyErr_Format(PyExc_ValueError, "memview: axis %lld is out of bounds for array of dimension %d", x,
                             nd);
                return 0;
            }
            if (x < 0)
                x += nd;
            if (seen[x]++) {
                PyObject *t = ints_tuple(v, n);
                if (t != NULL)
                    PyErr_Format(PyExc_ValueError, "memview: repeated axis in transpose: axes %R repeat axis %lld",
                                 t, x);
                Py_XDECREF(t);
                return 0;
            }
            perm[k] = (int)x;
        }
    }
    out->ndim = nd;
    out->offset = 0;
    for (int k = 0; k < nd; k++) {
        out->shape[k] = a->shape[perm[k]];
        out->strides[k] = a->strides[perm[k]];
    }
    return 1;
}

/* nocopy_reshape is memview's nocopyReshape (NumPy's _attempt_nocopy_reshape, C
 * order): 1 with strides in out, 0 if the reshape needs a copy. */
static int
nocopy_reshape(const MVArray *a, const Py_ssize_t *newshape, int nn, Py_ssize_t *newstrides)
{
    Py_ssize_t olddims[MV_MAXDIM], oldstrides[MV_MAXDIM];
    int on = 0;
    for (int k = 0; k < a->ndim; k++) {
        if (a->shape[k] != 1) {
            olddims[on] = a->shape[k];
            oldstrides[on++] = a->strides[k];
        }
    }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < nn && oi < on) {
        Py_ssize_t np = newshape[ni], op = olddims[oi];
        while (np != op) {
            if (np < op) {
                if (nj >= nn)
                    return 0;
                np *= newshape[nj++];
            } else {
                if (oj >= on)
                    return 0;
                op *= olddims[oj++];
            }
        }
        for (int ok = oi; ok < oj - 1; ok++)
            if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1])
                return 0;
        newstrides[nj - 1] = oldstrides[oj - 1];
        for (int nk = nj - 1; nk > ni; nk--)
            newstrides[nk - 1] = newstrides[nk] * newshape[nk];
        ni = nj++;
        oi = oj++;
    }
    Py_ssize_t last = ni >= 1 ? newstrides[ni - 1] : a->itemsize;
    for (int nk = ni; nk < nn; nk++)
        newstrides[nk] = last;
    return 1;
}

/* shape_tuple of the array's own shape, for messages */
static PyObject *
own_shape(const MVArray *a)
{
    long long v[MV_MAXDIM];
    for (int k = 0; k < a->ndim; k++)
        v[k] = a->shape[k];
    return ints_tuple(v, a->ndim);
}

/* reshape_layout: 1 done, 0 with the exception Go's Reshape raises, in its
 * words (a layout that needs a copy among them). */
int
mv_reshape_layout(const MVArray *a, PyObject *seq, mv_layout *out)
{
    Py_ssize_t n = seq_size(seq);
    if (n > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: reshape to %zd dimensions (at most %d)", n, MV_MAXDIM);
        return 0;
    }
    long long v[MV_MAXDIM];
    if (seq_ints(seq, n, v) < 0)
        return 0;
    Py_ssize_t size = 1, known = 1;
    for (int k = 0; k < a->ndim; k++)
        size *= a->shape[k];
    int unknown = -1;
    const char *why = NULL;
    for (Py_ssize_t k = 0; k < n && why == NULL; k++) {
        if (v[k] == -1 && unknown >= 0)
            why = "can only specify one unknown dimension";
        else if (v[k] == -1)
            unknown = (int)k;
        else if (v[k] < 0)
            why = "negative dimensions are not allowed";
        else if (__builtin_mul_overflow(known, (Py_ssize_t)v[k], &known))
            why = "shape is too large";
        out->shape[k] = (Py_ssize_t)v[k];
    }
    PyObject *t = why != NULL || (unknown >= 0 ? known == 0 || size % known != 0 : known != size) ? ints_tuple(v, n)
                                                                                                   : NULL;
    if (why != NULL) {
        if (t != NULL)
            PyErr_Format(PyExc_ValueError, "memview: reshape to %R: %s", t, why);
        Py_XDECREF(t);
        return 0;
    }
    if (unknown >= 0) {
        if (known == 0 || size % known != 0) {
            if (t != NULL)
                PyErr_Format(PyExc_ValueError, "memview: cannot reshape array of size %zd into shape %R", size, t);
            Py_XDECREF(t);
            return 0;
        }
        out->shape[unknown] = size / known;
    } else if (known != size) {
        PyObject *old = t != NULL ? own_shape(a) : NULL;
        if (old != NULL)
            PyErr_Format(PyExc_ValueError, "memview: cannot reshape array of size %zd into shape %R (the array has "
                                           "shape %R)", size, t, old);
        Py_XDECREF(t);
        Py_XDECREF(old);
        return 0;
    }
    out->ndim = (int)n;
    out->offset = 0;
    if (a->c_contig) {
        Py_ssize_t sd = a->itemsize;
        for (int k = (int)n - 1; k >= 0; k--) {
            out->strides[k] = sd;
            if (out->shape[k] > 0 && __builtin_mul_overflow(sd, out->shape[k], &sd)) {
                PyErr_Format(PyExc_ValueError, "memview: array is too big; `arr.size * arr.dtype.itemsize` is "
                                               "larger than the maximum possible size");
                return 0;
            }
        }
        return 1;
    }
    if (!nocopy_reshape(a, out->shape, (int)n, out->strides)) {
        PyErr_SetString(PyExc_ValueError, "memview: reshape of a non-contiguous view needs a copy; copy the array "
                                          "first");
        return 0;
    }
    return 1;
}

void
mv_contiguity(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize, int *c, int *f)
{
    *c = *f = 1;
    for (int k = 0; k < nd; k++)
        if (shape[k] == 0)
            return; /* no elements: both */
    uint64_t sd = (uint64_t)itemsize;
    for (int k = nd - 1; k >= 0; k--) {
        if (shape[k] > 1 && (uint64_t)strides[k] != sd) {
            *c = 0;
            break;
        }
        sd *= (uint64_t)shape[k];
    }
    sd = (uint64_t)itemsize;
    for (int k = 0; k < nd; k++) {
        if (shape[k] > 1 && (uint64_t)strides[k] != sd) {
            *f = 0;
            break;
        }
        sd *= (uint64_t)shape[k];
    }
}
