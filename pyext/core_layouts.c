/*
 * core_layouts.c — basic indexing, transpose and reshape computed in C from an
 * array's cached layout: memview's Layout.index, Transpose, Reshape and
 * contiguity rules (memview/index.go, transpose.go, reshape.go, contiguity.go)
 * ported, and checked against them by tests/test_views_c.py over random layouts
 * and keys. Every error is left to Go, which raises it.
 */
#include "core.h"

#define BIG ((Py_ssize_t)1 << 62) /* slice bounds are clamped here, as the facade does */

static Py_ssize_t
clamp(Py_ssize_t v)
{
    return v < -BIG ? -BIG : v > BIG ? BIG : v;
}

typedef struct {
    int kind; /* 0 int, 1 slice, 2 ellipsis, 3 newaxis */
    Py_ssize_t i, start, stop, step;
} key_item;

/* parse_item reads one key item: 1, or 0 when the fast path does not take it. */
static int
parse_item(PyObject *k, key_item *out)
{
    if (PyLong_CheckExact(k)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
        if (overflow || v < -BIG || v > BIG)
            return 0;
        out->kind = 0;
        out->i = (Py_ssize_t)v;
        return 1;
    }
    if (PySlice_Check(k)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
            PyErr_Clear(); /* the slow path says what is wrong */
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
    return 0;
}

/* index_layout applies a basic-indexing key to a's layout as memview's Layout.index
 * does: 1 done (*scalar says whether one element is selected), 0 for the slow
 * path (other key types, and every error: the slow path raises it). */
int
mv_index_layout(const MVArray *a, PyObject *key, mv_layout *out, int *scalar)
{
    key_item items[2 * MV_MAXDIM];
    Py_ssize_t n;
    if (PyTuple_Check(key)) {
        n = PyTuple_Size(key);
        if (n > 2 * MV_MAXDIM)
            return 0;
        for (Py_ssize_t j = 0; j < n; j++)
            if (!parse_item(PyTuple_GetItem(key, j), &items[j]))
                return 0;
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
    if (ellipses > 1 || consumed > nd || nd - ints + newaxes > MV_MAXDIM)
        return 0;
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
            if (i < -len || i >= len)
                return 0;
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

/* transpose_layout: 1 done, 0 for the slow path. axes NULL reverses. */
int
mv_transpose_layout(const MVArray *a, PyObject *axes, mv_layout *out)
{
    int nd = a->ndim, perm[MV_MAXDIM];
    Py_ssize_t n = axes ? seq_size(axes) : 0;
    if (n == 0) {
        for (int k = 0; k < nd; k++)
            perm[k] = nd - 1 - k;
    } else {
        if (n != nd)
            return 0;
        int seen[MV_MAXDIM] = {0};
        for (int k = 0; k < nd; k++) {
            PyObject *x = seq_item(axes, k);
            if (!PyLong_CheckExact(x))
                return 0;
            long v = PyLong_AsLong(x);
            if (v == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
            if (v < -nd || v >= nd)
                return 0;
            if (v < 0)
                v += nd;
            if (seen[v]++)
                return 0;
            perm[k] = (int)v;
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

/* reshape_layout: 1 done, 0 for the slow path (every error included). */
int
mv_reshape_layout(const MVArray *a, PyObject *seq, mv_layout *out)
{
    Py_ssize_t n = seq_size(seq);
    if (n > MV_MAXDIM)
        return 0;
    Py_ssize_t size = 1, known = 1;
    for (int k = 0; k < a->ndim; k++)
        size *= a->shape[k];
    int unknown = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = seq_item(seq, k);
        if (!PyLong_CheckExact(x))
            return 0;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        if (v == -1) {
            if (unknown >= 0)
                return 0;
            unknown = (int)k;
        } else if (v < 0 || __builtin_mul_overflow(known, (Py_ssize_t)v, &known)) {
            return 0;
        }
        out->shape[k] = (Py_ssize_t)v;
    }
    if (unknown >= 0) {
        if (known == 0 || size % known != 0)
            return 0;
        out->shape[unknown] = size / known;
    } else if (known != size) {
        return 0;
    }
    out->ndim = (int)n;
    out->offset = 0;
    if (a->c_contig) {
        Py_ssize_t sd = a->itemsize;
        for (int k = (int)n - 1; k >= 0; k--) {
            out->strides[k] = sd;
            if (out->shape[k] > 0 && __builtin_mul_overflow(sd, out->shape[k], &sd))
                return 0;
        }
        return 1;
    }
    return nocopy_reshape(a, out->shape, (int)n, out->strides);
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
