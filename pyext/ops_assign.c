/*
 * ops_assign.c — the one engine that writes host arrays: a[key] = value, fill,
 * memview.copyto and the copies between host arrays, in a parent and in a
 * forked child alike.
 *
 * A write has a target (the array written and the layout of the part of it
 * the key selects: no view object is made) and a source, resolved once:
 *
 *   - one item, packed in C for the basic numeric dtypes from Python numbers
 *     (core_elements.c's checked conversion), else by the facade's codecs,
 *     which are given the value and the dtype's name only (memview/_dtypes.py);
 *     a memview.record of the target's layout is its bytes;
 *   - a memview array, or any buffer exporter, read in place;
 *   - nested lists, converted into a temporary before the first byte moves, so
 *     that a refused element leaves the target as it was.
 *
 * The source is then broadcast to the target's shape, as NumPy does, and its
 * bytes moved: copied where the items are one layout (only the bytes of fields:
 * mv_meta.runs), cast where both are numeric (ops_cast.c, NumPy's unsafe
 * casts, with its warnings), converted through Python values otherwise
 * (strings, records of other layouts, long doubles: the facade's codecs). A
 * source that overlaps the target is read as if through a temporary. Work of
 * MV_NOGIL_MIN bytes or more runs without the GIL, in chunks of at most
 * MV_CHUNK bytes, with both arrays busy (release() refused meanwhile).
 *
 * Go is asked for what only Go has: item types (the one cache, ops_dtype.c),
 * memory for temporaries of MV_BLOCK_MAX bytes or more, and CUDA: a target or
 * source in device memory goes to the facade's device path, which Go serves.
 */
#include "ops.h"

/* ---- the facade's codecs (memview/_assign.py), set by set_codecs ---- */

static PyObject *codec_element;  /* (dtype, raw bytes) -> the Python value of one element */
static PyObject *codec_pack;     /* (dtype, value) -> bytes of one element (checked conversion) */
static PyObject *codec_sequence; /* (value, dtype, like) -> bytes of one element, or a new Array of like's items */
static PyObject *codec_convert;  /* (array, dtype, like) -> a new Array of like's items and the array's shape */
static PyObject *codec_void;     /* (value, dtype) -> bytes of one item of dtype from NumPy's record scalar */
static PyObject *codec_ctypes;   /* (obj) -> the format of a ctypes object's items, or None */
static PyObject *codec_device;   /* (target array, value, fill: bool, stream) -> None: a write with CUDA memory */
static PyObject *record_type;    /* memview.record */
static PyObject *number_type;    /* numbers.Number */

static int
codecs_ready(void)
{
    if (codec_pack != NULL)
        return 0;
    PyErr_SetString(PyExc_SystemError, "memview: the facade's codecs are not set (memview._assign)");
    return -1;
}

/* set_codecs(element, pack, sequence, convert, void, ctypes, device, record) */
static PyObject *
core_set_codecs(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *f[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]))
        return NULL;
    PyObject **slots[8] = {&codec_element, &codec_pack, &codec_sequence, &codec_convert,
                           &codec_void,    &codec_ctypes, &codec_device, &record_type};
    for (int k = 0; k < 8; k++) {
        PyObject *old = *slots[k];
        *slots[k] = Py_NewRef(f[k]);
        Py_XDECREF(old);
    }
    if (number_type == NULL) {
        PyObject *numbers = PyImport_ImportModule("numbers");
        if (numbers == NULL)
            return NULL;
        number_type = PyObject_GetAttrString(numbers, "Number");
        Py_DECREF(numbers);
        if (number_type == NULL)
            return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
mv_element_value(const MVArray *a, const char *p)
{
    if (a->scalar != MV_SK_NONE)
        return mv_read_scalar(a, p);
    if (codecs_ready() < 0)
        return NULL;
    PyObject *raw = PyBytes_FromStringAndSize(p, a->itemsize);
    if (raw == NULL)
        return NULL;
    PyObject *v = PyObject_CallFunction(codec_element, "sO", a->dtype, raw);
    Py_DECREF(raw);
    return v;
}

/* ---- targets and sources ---- */

/* The part of an array a write selects. */
typedef struct {
    MVArray *arr;
    char *buf;
    int nd;
    Py_ssize_t shape[MV_MAXDIM], strides[MV_MAXDIM];
} target;

/* What a write reads. */
typedef struct {
    const char *buf;
    int nd;
    Py_ssize_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    Py_ssize_t itemsize;
    const char *dtype;   /* memview's name of the items */
    const char *typestr; /* their array-interface typestr */
    MVArray *arr;        /* a memview array read (borrowed, busy while read) */
    Py_buffer *view;     /* an exporter's buffer read (&viewbuf, released at the end) */
    Py_buffer viewbuf;
    PyObject *keep;      /* what else must live while it is read (bytes, a temporary array) */
    char *format;        /* an exporter's: the format its items are read as (fmtbuf, or PyMem) */
    char fmtbuf[48];
    void *temp;          /* a temporary of this file's own (temp_free) */
    Py_ssize_t temp_len;
    char item[32];       /* one packed item, when it fits */
} source;

/* whole_of sets t's layout to all of a (a 0-d array has no shape to copy) */
static void
whole_of(target *t, const MVArray *a)
{
    for (int k = 0; k < a->ndim; k++) {
        t->shape[k] = a->shape[k];
        t->strides[k] = a->strides[k];
    }
}

static void
source_init(source *s)
{
    memset(s, 0, sizeof *s);
}

/* temporaries: PyMem below a mapping's worth, else memory mapped for the
 * purpose (core_child.c's, which a parent and a child may both use) */
static void *
temp_alloc(Py_ssize_t n)
{
    if (n < (1 << 20)) {
        void *p = PyMem_Malloc(n > 0 ? (size_t)n : 1);
        if (p == NULL)
            PyErr_NoMemory();
        return p;
    }
    return mv_child_map(n);
}

static void
temp_free(void *p, Py_ssize_t n)
{
    if (p == NULL)
        return;
    if (n < (1 << 20))
        PyMem_Free(p);
    else
        mv_child_unmap(p, n);
}

static void
source_clear(source *s)
{
    if (s->arr != NULL)
        s->arr->busy--;
    if (s->view != NULL)
        PyBuffer_Release(s->view);
    Py_XDECREF(s->keep);
    if (s->format != s->fmtbuf)
        PyMem_Free(s->format);
    temp_free(s->temp, s->temp_len);
    source_init(s);
}

static void
source_of_array(source *s, MVArray *b)
{
    s->buf = b->buf;
    s->nd = b->ndim;
    for (int k = 0; k < b->ndim; k++) {
        s->shape[k] = b->shape[k];
        s->strides[k] = b->strides[k];
    }
    s->itemsize = b->itemsize;
    s->dtype = b->dtype;
    s->typestr = b->typestr;
    s->arr = b;
    b->busy++;
}

/* source_item makes s one item of the target's type from n bytes at p (copied). */
static int
source_item(source *s, const MVArray *a, const char *p, Py_ssize_t n)
{
    if (n != a->itemsize) {
        PyErr_Format(PyExc_ValueError, "memview: %zd bytes for one item of %zd bytes of %s", n, a->itemsize,
                     a->dtype);
        return -1;
    }
    char *dst = s->item;
    if (n > (Py_ssize_t)sizeof s->item) {
        if ((s->temp = temp_alloc(n)) == NULL)
            return -1;
        s->temp_len = n;
        dst = s->temp;
    }
    memcpy(dst, p, (size_t)n);
    s->buf = dst;
    s->nd = 0;
    s->itemsize = a->itemsize;
    s->dtype = a->dtype;
    s->typestr = a->typestr;
    return 0;
}

/* source_packed packs value as one item of a's type: in C for the plain cases,
 * else by the facade's codec (checked conversion, in NumPy's words). */
static int
source_packed(source *s, const MVArray *a, PyObject *value)
{
    char one[16];
    if (a->scalar != MV_SK_NONE && a->itemsize <= 16 && mv_write_scalar(a, one, value))
        return source_item(s, a, one, a->itemsize);
    if (codecs_ready() < 0)
        return -1;
    PyObject *b = PyObject_CallFunction(codec_pack, "sO", a->dtype, value);
    if (b == NULL)
        return -1;
    int rc = PyBytes_Check(b) ? source_item(s, a, PyBytes_AsString(b), PyBytes_Size(b)) : -1;
    if (!PyBytes_Check(b))
        PyErr_SetString(PyExc_SystemError, "memview: the codec's pack gave no bytes");
    Py_DECREF(b);
    return rc;
}

/* seq_size and seq_item: a list's or tuple's length and item k (borrowed) */
static Py_ssize_t
seq_size(PyObject *o)
{
    return PyList_Check(o) ? PyList_Size(o) : PyTuple_Size(o);
}

static PyObject *
seq_item(PyObject *o, Py_ssize_t k)
{
    return PyList_Check(o) ? PyList_GetItem(o, k) : PyTuple_GetItem(o, k);
}

/* nested_shape is the shape of value nested by lists and tuples (as far as
 * the first element of each goes); its depth, or -1 past MV_MAXDIM. */
static int
nested_shape(PyObject *value, Py_ssize_t *shape)
{
    int nd = 0;
    while (PyList_Check(value) || PyTuple_Check(value)) {
        if (nd == MV_MAXDIM)
            return -1;
        Py_ssize_t n = seq_size(value);
        shape[nd++] = n;
        if (n == 0)
            break;
        value = seq_item(value, 0);
    }
    return nd;
}

/* fill_nested writes the elements of value, nested as shape (nd deep, from
 * depth), in C order at *p, items of a's type: 0, or -1 with the exception (a
 * ragged sequence, an element that does not convert). */
static int
fill_nested(const MVArray *a, PyObject *value, const Py_ssize_t *shape, int nd, int depth, char **p)
{
    int seq = PyList_Check(value) || PyTuple_Check(value);
    if (depth == nd) {
        if (seq) {
            PyErr_SetString(PyExc_ValueError, "memview: setting an array element with a sequence (the nested "
                                              "sequence is ragged)");
            return -1;
        }
        if (!mv_write_scalar(a, *p, value)) {
            if (PyErr_Occurred())
                return -1;
            PyObject *b = PyObject_CallFunction(codec_pack, "sO", a->dtype, value);
            if (b == NULL)
                return -1;
            if (!PyBytes_Check(b) || PyBytes_Size(b) != a->itemsize) {
                Py_DECREF(b);
                PyErr_SetString(PyExc_SystemError, "memview: the codec's pack gave no item");
                return -1;
            }
            memcpy(*p, PyBytes_AsString(b), (size_t)a->itemsize);
            Py_DECREF(b);
        }
        *p += a->itemsize;
        return 0;
    }
    if (!seq || seq_size(value) != shape[depth]) {
        PyErr_Format(PyExc_ValueError, "memview: the nested sequence is ragged at depth %d (expected length %zd)",
                     depth, shape[depth]);
        return -1;
    }
    for (Py_ssize_t k = 0; k < shape[depth]; k++)
        if (fill_nested(a, seq_item(value, k), shape, nd, depth + 1, p) < 0)
            return -1;
    return 0;
}

/* source_nested converts nested lists into a temporary of a's basic numeric
 * type, before anything is written. */
static int
source_nested(source *s, const MVArray *a, PyObject *value)
{
    int nd = nested_shape(value, s->shape);
    if (nd < 0) {
        PyErr_Format(PyExc_ValueError, "memview: the nested sequence is more than %d deep", MV_MAXDIM);
        return -1;
    }
    Py_ssize_t count = 1, bytes;
    for (int k = 0; k < nd; k++)
        if (__builtin_mul_overflow(count, s->shape[k], &count))
            return PyErr_NoMemory(), -1;
    if (__builtin_mul_overflow(count, a->itemsize, &bytes))
        return PyErr_NoMemory(), -1;
    if ((s->temp = temp_alloc(bytes)) == NULL)
        return -1;
    s->temp_len = bytes;
    char *p = s->temp;
    if (count > 0 && fill_nested(a, value, s->shape, nd, 0, &p) < 0)
        return -1;
    s->buf = s->temp;
    s->nd = nd;
    Py_ssize_t sd = a->itemsize;
    for (int k = nd - 1; k >= 0; k--) {
        s->strides[k] = sd;
        sd *= s->shape[k];
    }
    s->itemsize = a->itemsize;
    s->dtype = a->dtype;
    s->typestr = a->typestr;
    return 0;
}

/* source_buffer reads an exporter's buffer in place. Layouts memview would
 * refuse to view (suboffsets, strides that are not whole items, misaligned
 * items) are read into a C-ordered temporary first. It returns 0, -1 with the
 * exception, or -2 (with one) for a format that disagrees with the exporter's
 * item size, which Go's import may correct. */
static int
source_buffer(source *s, PyObject *value)
{
    if (PyObject_GetBuffer(value, &s->viewbuf, PyBUF_FULL_RO) < 0)
        return -1;
    s->view = &s->viewbuf;
    Py_buffer *v = s->view;
    const char *format = v->format ? v->format : "B";
    const mv_item *fi = mv_ask(MV_ASK_IMPORT, format, (Py_ssize_t)strlen(format), 0);
    if (fi == NULL || fi->itemsize != v->itemsize) {
        /* a ctypes object whose format misstates its items: its type's */
        PyObject *f = codec_ctypes ? PyObject_CallFunctionObjArgs(codec_ctypes, value, NULL) : NULL;
        if (f == NULL && PyErr_Occurred())
            return -1;
        if (f != NULL && PyUnicode_Check(f)) {
            const char *cf = PyUnicode_AsUTF8AndSize(f, NULL);
            fi = cf ? mv_ask(MV_ASK_IMPORT, cf, (Py_ssize_t)strlen(cf), 1) : NULL;
            Py_DECREF(f);
            if (fi == NULL)
                return -1;
        } else {
            Py_XDECREF(f);
            if (fi == NULL)
                fi = mv_ask(MV_ASK_IMPORT, format, (Py_ssize_t)strlen(format), 1); /* raises */
            if (fi == NULL)
                return -1;
            PyErr_Format(PyExc_ValueError, "memview: format '%s' has item size %zd but the exporter says %zd",
                         format, fi->itemsize, v->itemsize);
            return -2; /* Go's import corrects such formats (NumPy's for dtypes with offsets) */
        }
        if (fi->itemsize != v->itemsize) {
            PyErr_Format(PyExc_ValueError, "memview: format '%s' has item size %zd but the exporter says %zd",
                         fi->format, fi->itemsize, v->itemsize);
            return -1;
        }
    }
    size_t flen = strlen(fi->format);
    if (flen < sizeof s->fmtbuf)
        s->format = memcpy(s->fmtbuf, fi->format, flen + 1);
    else if ((s->format = mv_pymem_strdup(fi->format)) == NULL)
        return PyErr_NoMemory(), -1;
    s->itemsize = fi->itemsize;
    s->dtype = fi->dtype;
    s->typestr = fi->typestr;
    int nd = v->ndim;
    if (nd > MV_MAXDIM) {
        PyErr_SetString(PyExc_ValueError, "memview: the source has too many dimensions");
        return -1;
    }
    int odd = ((uintptr_t)v->buf % (uintptr_t)fi->align) != 0;
    if (nd > 0 && v->shape == NULL) { /* an exporter of bytes without a shape */
        s->nd = 1;
        s->shape[0] = v->itemsize ? v->len / v->itemsize : 0;
        s->strides[0] = v->itemsize;
    } else {
        s->nd = nd;
        Py_ssize_t sd = v->itemsize;
        for (int k = nd - 1; k >= 0; k--) {
            s->shape[k] = v->shape[k];
            s->strides[k] = v->strides ? v->strides[k] : sd;
            sd *= v->shape[k];
            if (s->strides[k] % v->itemsize != 0)
                odd = 1;
        }
    }
    if (v->suboffsets != NULL)
        for (int k = 0; k < nd; k++)
            odd |= v->suboffsets[k] >= 0;
    if (!odd) {
        s->buf = v->buf;
        return 0;
    }
    if ((s->temp = temp_alloc(v->len)) == NULL)
        return -1;
    s->temp_len = v->len;
    if (PyBuffer_ToContiguous(s->temp, v, v->len, 'C') < 0)
        return -1;
    s->buf = s->temp;
    Py_ssize_t sd = v->itemsize;
    for (int k = s->nd - 1; k >= 0; k--) {
        s->strides[k] = sd;
        sd *= s->shape[k];
    }
    return 0;
}

/* is_device_source: CUDA memory (a memview array on a device, or a CUDA Array
 * Interface producer without the buffer protocol) */
static int
is_device_source(PyObject *value)
{
    if (mv_is_array(value))
        return ((MVArray *)value)->device_kind != MV_DEV_CPU;
    PyTypeObject *t = Py_TYPE(value);
    if (t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type || t == &PyComplex_Type ||
        t == &PyList_Type || t == &PyTuple_Type || t == &PyUnicode_Type || t == &PyDict_Type ||
        PyObject_CheckBuffer(value))
        return 0; /* what Python writes most, known without asking for the attribute */
    PyObject *cai = PyObject_GetAttrString(value, "__cuda_array_interface__");
    if (cai == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(cai);
    return 1;
}

/* is_basic: a's items are one of the basic dtypes, in native order */
static int
is_basic(const MVArray *a)
{
    const mv_basic *b = mv_basic_of_typestr(a->typestr);
    return b != NULL && b->itemsize == a->itemsize;
}

/* is_numpy_void: value is NumPy's record scalar (np.void) */
static int
is_numpy_void(PyObject *value)
{
    PyObject *type, *exc, *tb; /* an exception already set is kept */
    PyErr_Fetch(&type, &exc, &tb);
    PyObject *name = PyType_GetName(Py_TYPE(value));
    int yes = name != NULL && PyUnicode_CompareWithASCIIString(name, "void") == 0;
    Py_XDECREF(name);
    if (yes) {
        PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(value), "__module__");
        yes = mod != NULL && PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "numpy") == 0;
        Py_XDECREF(mod);
    }
    PyErr_Clear();
    PyErr_Restore(type, exc, tb);
    return yes;
}

/* source_void: NumPy's record scalar as one item of a's type, by the facade's
 * codec (its bytes where it has a's layout, else its values converted) */
static int
source_void(source *s, const MVArray *a, PyObject *value)
{
    PyObject *r = PyObject_CallFunction(codec_void, "Os", value, a->dtype);
    if (r == NULL)
        return -1;
    int rc = -1;
    if (PyBytes_Check(r))
        rc = source_item(s, a, PyBytes_AsString(r), PyBytes_Size(r));
    else
        PyErr_SetString(PyExc_SystemError, "memview: the codec's void gave no bytes");
    Py_DECREF(r);
    return rc;
}

/* type_error: the value cannot be written to a */
static int
type_error(const MVArray *a, PyObject *value)
{
    PyObject *name = PyType_GetName(Py_TYPE(value));
    if (name != NULL)
        PyErr_Format(PyExc_TypeError, "memview: cannot assign a %R to a %s array", name, a->dtype);
    Py_XDECREF(name);
    return -1;
}

/* resolve turns value into a source for writing items of a's type. */
static int
resolve(source *s, MVArray *a, PyObject *value)
{
    if (mv_is_array(value)) {
        MVArray *b = (MVArray *)value;
        if (mv_check_live(b) < 0)
            return -1;
        source_of_array(s, b);
        return 0;
    }
    if (codecs_ready() < 0)
        return -1;
    PyTypeObject *t = Py_TYPE(value);
    if (t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type || t == &PyComplex_Type ||
        PyUnicode_Check(value) || (PyBytes_Check(value) && !is_basic(a)))
        /* a str is parsed as a number for a numeric dtype, as NumPy does; bytes
         * are one item of a bytes dtype, and a buffer for a basic one */
        return source_packed(s, a, value);
    if (PyObject_TypeCheck(value, (PyTypeObject *)record_type)) {
        PyObject *dt = PyObject_GetAttrString(value, "_dtype");
        int same = dt != NULL && PyUnicode_Check(dt) && PyUnicode_CompareWithASCIIString(dt, a->dtype) == 0;
        Py_XDECREF(dt);
        if (same) { /* an element of this layout: its bytes, exactly */
            PyObject *raw = PyObject_GetAttrString(value, "_raw");
            if (raw == NULL)
                return -1;
            int rc = PyBytes_Check(raw) ? source_item(s, a, PyBytes_AsString(raw), PyBytes_Size(raw)) : -1;
            Py_DECREF(raw);
            return rc;
        }
        PyErr_Clear();
    }
    if (PyList_Check(value) || PyTuple_Check(value) || PyDict_Check(value)) {
        if (is_basic(a) && !PyDict_Check(value))
            return source_nested(s, a, value);
        PyObject *r = PyObject_CallFunction(codec_sequence, "OsO", value, a->dtype, (PyObject *)a);
        if (r == NULL)
            return -1;
        if (PyBytes_Check(r)) {
            int rc = source_item(s, a, PyBytes_AsString(r), PyBytes_Size(r));
            Py_DECREF(r);
            return rc;
        }
        if (!mv_is_array(r)) {
            Py_DECREF(r);
            PyErr_SetString(PyExc_SystemError, "memview: the codec's sequence gave no array");
            return -1;
        }
        source_of_array(s, (MVArray *)r);
        s->keep = r;
        return 0;
    }
    if (PyObject_CheckBuffer(value)) {
        int rc = source_buffer(s, value);
        if (rc < 0) {
            /* NumPy's record scalar misstates some layouts in its format */
            if (is_numpy_void(value)) {
                PyErr_Clear();
                source_clear(s);
                return source_void(s, a, value);
            }
            if (rc == -1 || !mv_go_usable())
                return -1;
            /* a format that misstates the item size: Go's import reads it as the
             * exporter meant it (memview.from_buffer's reading) */
            PyErr_Clear();
            source_clear(s);
            PyObject *arr = mv_import_go(value);
            if (arr == NULL)
                return -1;
            source_of_array(s, (MVArray *)arr);
            s->keep = arr;
            return 0;
        }
        if (s->nd > 0)
            return 0; /* an array's memory */
        /* a 0-d buffer: NumPy's scalars are numbers (the checked conversion), its
         * record scalar one item; a 0-d array is an array */
        if (is_numpy_void(value)) {
            source_clear(s);
            return source_void(s, a, value);
        }
    }
    int number = PyObject_IsInstance(value, number_type);
    if (number < 0)
        return -1;
    if (number) { /* NumPy's scalars, Fraction, Decimal: the checked conversion */
        source_clear(s);
        return source_packed(s, a, value);
    }
    if (s->buf != NULL)
        return 0; /* a 0-d exporter */
    return type_error(a, value);
}

/* ---- moving the bytes ---- */

/* The work a write does, over one chunk of the target's first axis at a time. */
typedef struct {
    int cast;           /* 0: copy (only runs), 1: cast */
    mv_num dn, sn;      /* the cast's types */
    const int64_t *runs;
    Py_ssize_t itemsize;
    int flags;          /* what the casts found (MV_CAST_*) */
} work;

static void
do_work(work *w, char *d, const Py_ssize_t *ds, const char *s, const Py_ssize_t *ss, const Py_ssize_t *shape, int nd)
{
    if (w->cast)
        w->flags |= mv_cast_strided(d, ds, w->dn, s, ss, w->sn, shape, nd);
    else
        mv_host_copy(d, ds, s, ss, shape, nd, w->itemsize, w->runs);
}

/* run does w over the target's layout from src (strides ss), without the GIL
 * in chunks of at most MV_CHUNK target bytes where it is long. */
static void
run(work *w, char *dst, int nd, const Py_ssize_t *shape, const Py_ssize_t *ds, const char *src, const Py_ssize_t *ss)
{
    Py_ssize_t count = 1;
    for (int k = 0; k < nd; k++)
        count *= shape[k];
    if (count == 0)
        return;
    Py_ssize_t bytes = count * w->itemsize;
    if (bytes < MV_NOGIL_MIN) {
        do_work(w, dst, ds, src, ss, shape, nd);
        return;
    }
    /* a copy of dense items on both sides, too large to stay in the cache:
     * streamed, chunk by chunk (mv_copy_stream) */
    int stream = !w->cast && w->runs == NULL && bytes >= mv_stream_min();
    for (Py_ssize_t k = nd - 1, sd = w->itemsize; stream && k >= 0; k--) {
        stream = shape[k] == 1 || (ds[k] == sd && ss[k] == sd);
        sd *= shape[k];
    }
    if (stream) {
        for (Py_ssize_t at = 0; at < bytes; at += MV_CHUNK) {
            size_t n = (size_t)(bytes - at < MV_CHUNK ? bytes - at : MV_CHUNK);
            Py_BEGIN_ALLOW_THREADS
            mv_copy_stream(dst + at, src + at, n);
            Py_END_ALLOW_THREADS
        }
        return;
    }
    /* split the first axis longer than 1 into chunks */
    int ax = 0;
    while (ax < nd && shape[ax] == 1)
        ax++;
    Py_ssize_t rows = ax < nd ? shape[ax] : 1, per = bytes / (rows > 0 ? rows : 1);
    Py_ssize_t step = per >= MV_CHUNK ? 1 : MV_CHUNK / (per > 0 ? per : 1);
    Py_ssize_t cshape[MV_MAXDIM];
    memcpy(cshape, shape, (size_t)nd * sizeof(Py_ssize_t));
    for (Py_ssize_t r = 0; r < rows; r += step) {
        Py_ssize_t n = rows - r < step ? rows - r : step;
        if (ax < nd)
            cshape[ax] = n;
        char *d = dst + (ax < nd ? r * ds[ax] : 0);
        const char *s = src + (ax < nd ? r * ss[ax] : 0);
        Py_BEGIN_ALLOW_THREADS
        do_work(w, d, ds, s, ss, cshape, nd);
        Py_END_ALLOW_THREADS
    }
}

/* gather copies the source into a dense, C-ordered temporary of its own shape
 * and type, and reads from there: a source that overlaps the target is then
 * read as if through a temporary. */
static int
gather(source *s)
{
    Py_ssize_t count = 1;
    for (int k = 0; k < s->nd; k++)
        count *= s->shape[k];
    Py_ssize_t n = count * s->itemsize;
    char *t = temp_alloc(n);
    if (t == NULL)
        return -1;
    Py_ssize_t ts[MV_MAXDIM], sd = s->itemsize;
    for (int k = s->nd - 1; k >= 0; k--) {
        ts[k] = sd;
        sd *= s->shape[k];
    }
    work w = {.itemsize = s->itemsize};
    run(&w, t, s->nd, s->shape, ts, s->buf, s->strides);
    void *old = s->temp;
    Py_ssize_t old_len = s->temp_len;
    s->temp = t;
    s->temp_len = n;
    temp_free(old, old_len); /* a temporary of its own, read already */
    s->buf = t;
    memcpy(s->strides, ts, sizeof ts);
    return 0;
}

/* reach: the bytes [lo, hi) a layout's items reach from element 0 */
static void
reach(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize, Py_ssize_t *lo,
      Py_ssize_t *hi)
{
    *lo = 0;
    *hi = itemsize;
    for (int k = 0; k < nd; k++) {
        if (shape[k] == 0) {
            *hi = 0;
            return;
        }
        Py_ssize_t e = strides[k] * (shape[k] - 1);
        if (e < 0)
            *lo += e;
        else
            *hi += e;
    }
}

static int
overlaps(const target *t, const source *s, Py_ssize_t itemsize)
{
    Py_ssize_t dlo, dhi, slo, shi;
    reach(t->nd, t->shape, t->strides, itemsize, &dlo, &dhi);
    reach(s->nd, s->shape, s->strides, s->itemsize, &slo, &shi);
    if (dhi <= dlo || shi <= slo)
        return 0;
    return t->buf + dhi > s->buf + slo && s->buf + shi > t->buf + dlo;
}

/* convert_values reads the source through Python values into a new array of
 * the target's type (strings, records of other layouts, long doubles: the
 * facade's codecs), which becomes the source. */
static int
convert_values(source *s, MVArray *a)
{
    PyObject *src;
    if (s->arr != NULL) {
        src = Py_NewRef((PyObject *)s->arr);
    } else {
        /* an array over the source's bytes, for the codecs to read */
        Py_ssize_t count = 1;
        for (int k = 0; k < s->nd; k++)
            count *= s->shape[k];
        if (s->view == NULL) {
            PyErr_Format(PyExc_TypeError, "memview: cannot convert %s items to %s", s->dtype, a->dtype);
            return -1;
        }
        Py_buffer *v = PyMem_Calloc(1, sizeof(Py_buffer));
        if (v == NULL)
            return PyErr_NoMemory(), -1;
        if (PyObject_GetBuffer(s->view->obj, v, PyBUF_FULL_RO) < 0) {
            PyMem_Free(v);
            return -1;
        }
        src = mv_import_format(s->view->obj, v, s->format, 1, PyBUF_FULL_RO);
        if (src == NULL) {
            PyBuffer_Release(v);
            PyMem_Free(v);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "memview: cannot convert %s items to %s", s->dtype, a->dtype);
            return -1;
        }
        (void)count;
        if (src == NULL && !PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "memview: cannot convert %s items to %s", s->dtype, a->dtype);
    }
    PyObject *r = PyObject_CallFunction(codec_convert, "OsO", src, a->dtype, (PyObject *)a);
    Py_DECREF(src);
    if (r == NULL)
        return -1;
    if (!mv_is_array(r)) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_SystemError, "memview: the codec's convert gave no array");
        return -1;
    }
    source_clear(s);
    source_of_array(s, (MVArray *)r);
    s->keep = r;
    return 0;
}

/* write moves a resolved source into the target. */
static int
write_source(target *t, source *s)
{
    MVArray *a = t->arr;
    work w = {.itemsize = a->itemsize, .runs = a->runs};
    if (strcmp(s->dtype, a->dtype) != 0 || s->itemsize != a->itemsize) {
        if (mv_num_of(a->typestr, &w.dn) && mv_num_of(s->typestr, &w.sn)) {
            w.cast = 1;
        } else if (convert_values(s, a) < 0) {
            return -1;
        }
    }
    Py_ssize_t ss[MV_MAXDIM];
    if (mv_host_broadcast(s->nd, s->shape, s->strides, t->nd, t->shape, ss) < 0)
        return -1;
    if (w.cast && mv_cast_prewarn(w.dn, w.sn) < 0)
        return -1;
    if (overlaps(t, s, a->itemsize)) {
        /* one axis (others of length 1), one stride on both sides: NumPy's
         * interleaved views (b[::2] = b[1::2]) do not share an item, and a
         * shift of dense items (b[1:] = b[:-1]) is a memmove */
        int ax = -1, one = 1;
        for (int k = 0; k < t->nd && one; k++)
            if (t->shape[k] != 1) {
                one = ax < 0;
                ax = k;
            }
        if (one && ax >= 0 && t->strides[ax] == ss[ax] && ss[ax] != 0) {
            Py_ssize_t st = ss[ax] < 0 ? -ss[ax] : ss[ax], delta = t->buf - s->buf, r = delta % st;
            if (r < 0)
                r += st;
            if (r >= a->itemsize && st - r >= a->itemsize)
                goto apart;
            if (!w.cast && w.runs == NULL && st == a->itemsize) {
                char *lo = t->buf + (ss[ax] < 0 ? ss[ax] * (t->shape[ax] - 1) : 0);
                const char *slo = s->buf + (ss[ax] < 0 ? ss[ax] * (t->shape[ax] - 1) : 0);
                a->busy++;
                NOGIL(t->shape[ax] * st >= MV_NOGIL_MIN, memmove(lo, slo, (size_t)(t->shape[ax] * st)));
                a->busy--;
                return 0;
            }
        }
        int same = t->buf == s->buf && !w.cast;
        for (int k = 0; same && k < t->nd; k++)
            same = t->strides[k] == ss[k] || t->shape[k] <= 1;
        if (same)
            return 0; /* every item onto itself */
        if (gather(s) < 0)
            return -1;
        if (mv_host_broadcast(s->nd, s->shape, s->strides, t->nd, t->shape, ss) < 0)
            return -1;
    }
apart:
    a->busy++;
    run(&w, t->buf, t->nd, t->shape, t->strides, s->buf, ss);
    a->busy--;
    if (w.cast && w.flags && mv_cast_postwarn(w.flags) < 0)
        return -1;
    return 0;
}

/* device_assign: a write with CUDA memory on either side goes to the facade's
 * device path (Go copies between devices); t becomes an array object first. */
static int
device_assign(target *t, PyObject *value, PyObject *whole)
{
    if (codecs_ready() < 0)
        return -1;
    mv_layout l = {.ndim = t->nd, .offset = t->buf - t->arr->buf};
    memcpy(l.shape, t->shape, (size_t)t->nd * sizeof(Py_ssize_t));
    memcpy(l.strides, t->strides, (size_t)t->nd * sizeof(Py_ssize_t));
    PyObject *dst = whole ? Py_NewRef(whole) : mv_view_of(t->arr, &l);
    if (dst == NULL)
        return -1;
    PyObject *r = PyObject_CallFunction(codec_device, "OOOO", dst, value, Py_False, Py_None);
    Py_DECREF(dst);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

static int
assign(target *t, PyObject *value, PyObject *whole)
{
    MVArray *a = t->arr;
    if (a->readonly) {
        PyErr_SetString(PyExc_ValueError, "memview: assignment destination is read-only");
        return -1;
    }
    if (a->device_kind != MV_DEV_CPU || is_device_source(value))
        return device_assign(t, value, whole);
    source s;
    source_init(&s);
    int rc = resolve(&s, a, value);
    if (rc == 0)
        rc = write_source(t, &s);
    source_clear(&s);
    return rc;
}

/* ---- the entry points ---- */

int
mv_assign_layout(MVArray *a, const mv_layout *l, PyObject *value)
{
    target t = {.arr = a, .buf = a->buf + l->offset, .nd = l->ndim};
    memcpy(t.shape, l->shape, (size_t)l->ndim * sizeof(Py_ssize_t));
    memcpy(t.strides, l->strides, (size_t)l->ndim * sizeof(Py_ssize_t));
    return assign(&t, value, NULL);
}

int
mv_assign_all(MVArray *a, PyObject *value)
{
    if (mv_check_live(a) < 0)
        return -1;
    target t = {.arr = a, .buf = a->buf, .nd = a->ndim};
    whole_of(&t, a);
    return assign(&t, value, (PyObject *)a);
}

/* Array.fill(value, *, stream=None): every element set to value, in place */
static PyObject *
array_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    PyObject *value = nargs == 1 ? args[0] : NULL, *stream = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k);
        if (PyUnicode_CompareWithASCIIString(kw, "stream") == 0 && stream == NULL)
            stream = args[nargs + k];
        else if (PyUnicode_CompareWithASCIIString(kw, "value") == 0 && value == NULL && nargs == 0)
            value = args[nargs + k];
        else {
            PyErr_Format(PyExc_TypeError, "memview: fill() got an unexpected keyword argument %R", kw);
            return NULL;
        }
    }
    if (value == NULL || nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "memview: fill() takes one value");
        return NULL;
    }
    if (mv_check_live(a) < 0)
        return NULL;
    if (a->device_kind != MV_DEV_CPU || (stream != NULL && stream != Py_None)) {
        if (codecs_ready() < 0)
            return NULL;
        if (a->readonly) {
            PyErr_SetString(PyExc_ValueError, "memview: assignment destination is read-only");
            return NULL;
        }
        return PyObject_CallFunction(codec_device, "OOOO", self, value, Py_True, stream ? stream : Py_None);
    }
    if (a->readonly) {
        PyErr_SetString(PyExc_ValueError, "memview: assignment destination is read-only");
        return NULL;
    }
    /* one item, always: a sequence is one record, a list a sub-array's element */
    source s;
    source_init(&s);
    int rc = codecs_ready(), packed = 0;
    if (rc == 0) {
        if (mv_is_array(value) || PyObject_CheckBuffer(value))
            rc = resolve(&s, a, value);
        else
            rc = source_packed(&s, a, value), packed = 1;
    }
    if (rc == 0 && s.nd != 0) {
        PyErr_SetString(PyExc_ValueError, "memview: fill() takes one element's value");
        rc = -1;
    }
    if (rc == 0 && packed && a->runs == NULL && (a->c_contig || a->f_contig) && a->len < MV_NOGIL_MIN) {
        /* one item of a's own type into dense items: straight to the fill loop */
        Py_ssize_t n = a->len / a->itemsize, zero = 0;
        mv_host_copy(a->buf, &a->itemsize, s.buf, &zero, &n, 1, a->itemsize, NULL);
    } else if (rc == 0) {
        target t = {.arr = a, .buf = a->buf, .nd = a->ndim};
        whole_of(&t, a);
        rc = write_source(&t, &s);
    }
    source_clear(&s);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- memview.copyto: NumPy's casting rules ---- */

enum { CAST_NO, CAST_EQUIV, CAST_SAFE, CAST_SAME_KIND, CAST_UNSAFE };

static int
casting_arg(PyObject *o, int *out)
{
    static const char *const names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
    for (int k = 0; k < 5; k++)
        if (PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, names[k]) == 0) {
            *out = k;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "memview: casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                                   "'unsafe', not %R", o);
    return -1;
}

/* kind_rank orders NumPy's kinds as its safe casts go: bool < uint < int < float < complex */
static int
kind_rank(char k)
{
    switch (k) {
    case 'b': return 0;
    case 'u': return 1;
    case 'i': return 2;
    case 'f': return 3;
    default: return 4;
    }
}

/* safe_cast is NumPy's can_cast(s, d, "safe") for the numeric types */
static int
safe_cast(mv_num d, mv_num s)
{
    if (s.kind == 'b')
        return 1;
    if (d.kind == 'b')
        return 0;
    if (s.kind == d.kind)
        return d.size >= s.size;
    switch (s.kind) {
    case 'u':
        if (d.kind == 'i')
            return d.size > s.size;
        /* to float: a mantissa that holds it (f2: 8 bits, f4: 16, f8: 64) */
        if (d.kind == 'f')
            return (s.size == 1 && d.size >= 2) || (s.size == 2 && d.size >= 4) || (s.size >= 4 && d.size >= 8);
        return (s.size == 1 && d.size >= 8) || (s.size == 2 && d.size >= 8) || (s.size >= 4 && d.size >= 16);
    case 'i':
        if (d.kind == 'f')
            return (s.size == 1 && d.size >= 2) || (s.size == 2 && d.size >= 4) || (s.size >= 4 && d.size >= 8);
        if (d.kind == 'c')
            return (s.size <= 2 && d.size >= 8) || (s.size >= 4 && d.size >= 16);
        return 0;
    case 'f':
        return d.kind == 'c' && d.size >= 2 * s.size;
    }
    return 0;
}

/* can_cast says whether copyto may cast items of src's type to dst's under casting. */
static int
can_cast(const char *dtype_d, const char *typestr_d, const char *dtype_s, const char *typestr_s, int casting)
{
    if (casting == CAST_UNSAFE)
        return 1;
    mv_num d, s;
    int numeric = mv_num_of(typestr_d, &d) && mv_num_of(typestr_s, &s);
    if (strcmp(dtype_d, dtype_s) == 0)
        return casting != CAST_NO || !numeric || d.swapped == s.swapped;
    if (!numeric)
        return 0;
    if (casting <= CAST_EQUIV) /* 'no' keeps the byte order too; 'equiv' may swap it */
        return d.kind == s.kind && d.size == s.size && (casting == CAST_EQUIV || d.swapped == s.swapped);
    if (safe_cast(d, s))
        return 1;
    return casting == CAST_SAME_KIND && kind_rank(s.kind) <= kind_rank(d.kind);
}

/* copyto(dst, src, *, casting="same_kind"): NumPy's np.copyto for memview arrays */
static PyObject *
core_copyto(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)mod;
    PyObject *d = nargs > 0 ? args[0] : NULL, *value = nargs > 1 ? args[1] : NULL, *casting_obj = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    int bad = nargs > 2;
    for (Py_ssize_t k = 0; k < nkw && !bad; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k), **slot = NULL;
        if (PyUnicode_CompareWithASCIIString(kw, "casting") == 0)
            slot = &casting_obj;
        else if (PyUnicode_CompareWithASCIIString(kw, "dst") == 0)
            slot = &d;
        else if (PyUnicode_CompareWithASCIIString(kw, "src") == 0)
            slot = &value;
        if (slot == NULL || *slot != NULL) {
            PyErr_Format(PyExc_TypeError, "memview.copyto: unexpected or repeated argument %R", kw);
            return NULL;
        }
        *slot = args[nargs + k];
    }
    if (bad || d == NULL || value == NULL) {
        PyErr_SetString(PyExc_TypeError, "memview.copyto() takes dst and src, and casting as a keyword");
        return NULL;
    }
    int casting = CAST_SAME_KIND;
    if (casting_obj != NULL && casting_arg(casting_obj, &casting) < 0)
        return NULL;
    if (!mv_is_array(d)) {
        PyObject *name = PyType_GetName(Py_TYPE(d));
        if (name != NULL)
            PyErr_Format(PyExc_TypeError, "memview.copyto: dst must be a memview.Array, not %R", name);
        Py_XDECREF(name);
        return NULL;
    }
    MVArray *a = (MVArray *)d;
    if (mv_check_live(a) < 0)
        return NULL;
    if (casting != CAST_UNSAFE) {
        PyTypeObject *t = Py_TYPE(value);
        mv_num dn;
        int dnum = mv_num_of(a->typestr, &dn);
        if (t == &PyBool_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyComplex_Type) {
            /* Python numbers are weak (NEP 50): their kind alone is checked */
            char k = t == &PyBool_Type ? 'b' : t == &PyLong_Type ? 'i' : t == &PyFloat_Type ? 'f' : 'c';
            if (dnum && kind_rank(k) > kind_rank(dn.kind) && !(k == 'i' && dn.kind == 'u')) {
                static const char *const kinds[] = {"bool", "int", "float", "complex"};
                PyErr_Format(PyExc_TypeError, "memview: cannot cast a Python %s to %s according to the rule '%s'",
                             kinds[k == 'b' ? 0 : k == 'i' ? 1 : k == 'f' ? 2 : 3], a->dtype,
                             (const char *[]){"no", "equiv", "safe", "same_kind", "unsafe"}[casting]);
                return NULL;
            }
        } else if (mv_is_array(value) || PyObject_CheckBuffer(value)) {
            source s;
            source_init(&s);
            int rc = resolve(&s, a, value);
            if (rc == 0 && s.nd >= 0 && !can_cast(a->dtype, a->typestr, s.dtype, s.typestr, casting)) {
                PyErr_Format(PyExc_TypeError, "memview: cannot cast array data from %s to %s according to the "
                                              "rule '%s'", s.dtype, a->dtype,
                             (const char *[]){"no", "equiv", "safe", "same_kind", "unsafe"}[casting]);
                rc = -1;
            }
            if (rc == 0) {
                target tg = {.arr = a, .buf = a->buf, .nd = a->ndim};
                whole_of(&tg, a);
                if (a->readonly) {
                    PyErr_SetString(PyExc_ValueError, "memview: assignment destination is read-only");
                    rc = -1;
                } else if (a->device_kind != MV_DEV_CPU || is_device_source(value)) {
                    source_clear(&s);
                    rc = device_assign(&tg, value, d);
                    return rc < 0 ? NULL : Py_NewRef(Py_None);
                } else {
                    rc = write_source(&tg, &s);
                }
            }
            source_clear(&s);
            if (rc < 0)
                return NULL;
            Py_RETURN_NONE;
        }
    }
    if (mv_assign_all(a, value) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef mv_assign_methods[] = {
    {"fill", (PyCFunction)(void (*)(void))array_fill, METH_FASTCALL | METH_KEYWORDS,
     "fill($self, value, *, stream=None)\n--\n\n"
     "Set every element to value, in place (on a CUDA device: enqueued on stream,\n"
     "default the legacy default stream)."},
    {NULL},
};

PyMethodDef mv_assign_functions[] = {
    {"set_codecs", core_set_codecs, METH_VARARGS,
     "set_codecs(element, pack, sequence, convert, void, ctypes, device, record): the facade's codecs"},
    {"copyto", (PyCFunction)(void (*)(void))core_copyto, METH_FASTCALL | METH_KEYWORDS,
     "copyto($module, dst, src, *, casting='same_kind')\n--\n\n"
     "Copy src's values into dst, in place, broadcasting src to dst's shape, as\n"
     "numpy.copyto does. src is a memview array, any buffer exporter (a NumPy array,\n"
     "bytes, array.array), nested lists or a scalar. casting ('no', 'equiv', 'safe',\n"
     "'same_kind' or 'unsafe') is NumPy's rule for which casts of array data are\n"
     "allowed (TypeError otherwise); the casts themselves are NumPy's, warnings\n"
     "included. A src that overlaps dst is read as if copied first."},
    {NULL},
};
