/*
 * dlpack.c — DLPack 1.3 both ways: __dlpack__ / __dlpack_device__ on the array
 * type, the C exchange table (__dlpack_c_exchange_api__), and
 * memview._core.from_dlpack, following the Python specification of DLPack (the
 * array API standard's __dlpack__ and from_dlpack).
 *
 * Export reads only what the array cached at creation (mv_dlpack_cache): the
 * tensor's shape and element strides point into the array object, which the
 * tensor keeps alive, so an export is one small malloc and calls no Go — except
 * for CUDA stream ordering and for copies, which Go does.
 *
 * Import asks the producer with one vectorcall (no bound method, no keyword
 * dict); a host tensor then becomes an array without Go (dlpack_import.c),
 * any other tensor is handed to Go (import_tensor), which owns it from then on.
 */
#include "protocols.h"
#include <dlfcn.h>
#include "foreign.h"
#include "go_bridge.h"

/* ---- what an array caches at creation ---- */

/* mv_dlpack_cache works out once whether the array can be described by DLPack
 * (native byte order, a number or boolean dtype, strides that are whole items)
 * and caches the DLPack dtype and the element strides. */
void
mv_dlpack_cache(MVArray *a)
{
    a->dl_ok = 0;
    const char *t = a->typestr;
    if ((t[0] != '<' && t[0] != '|') || t[1] == 0 || t[2] < '1' || t[2] > '9')
        return; /* DLPack data is in native (little-endian) byte order */
    /* the item size in the typestr: one digit, or "16" (the sizes DLPack has) */
    long size = t[3] == 0 ? t[2] - '0' : (t[2] == '1' && t[3] == '6' && t[4] == 0) ? 16 : 0;
    uint8_t code;
    switch (t[1]) {
    case 'b': code = kDLBool; if (size != 1) return; break;
    case 'i': code = kDLInt; if (size != 1 && size != 2 && size != 4 && size != 8) return; break;
    case 'u': code = kDLUInt; if (size != 1 && size != 2 && size != 4 && size != 8) return; break;
    case 'f': code = kDLFloat; if (size != 2 && size != 4 && size != 8) return; break;
    case 'c': code = kDLComplex; if (size != 8 && size != 16) return; break;
    default: return; /* records, strings, sub-arrays: no DLPack type */
    }
    if (a->itemsize != size)
        return;
    /* every size above is a power of two: strides in items by a shift */
    int shift = __builtin_ctzl((unsigned long)size);
    for (int i = 0; i < a->ndim; i++) {
        if ((a->strides[i] & (size - 1)) != 0)
            return;
        a->dl_strides[i] = a->strides[i] >> shift; /* arithmetic: negative strides stay exact */
    }
    a->dl_code = code;
    a->dl_bits = (uint8_t)(size * 8);
    a->dl_ok = 1;
}

static int
refuse_dtype(const MVArray *a)
{
    const char *why = a->typestr[0] == '>' ? "DLPack describes native byte order only"
                      : (a->typestr[1] == 'V' || a->typestr[1] == 'S')
                          ? "DLPack has numbers and booleans only, no records, strings or sub-arrays"
                          : "a stride is not a whole number of items";
    PyErr_Format(PyExc_BufferError, "memview: an array of dtype %s cannot be exported through DLPack: %s",
                 a->dtype, why);
    return -1;
}

/* ---- export ---- */

static void
fill_tensor(const MVArray *a, DLTensor *dl, DLDevice dev)
{
    /* The specification allows NULL for size 0, but NumPy then neither uses nor
     * deletes the tensor: element 0's address, as NumPy and CuPy export it. */
    dl->data = a->buf;
    dl->device = dev;
    dl->ndim = a->ndim;
    dl->dtype = (DLDataType){a->dl_code, a->dl_bits, 1};
    dl->shape = a->ndim ? (int64_t *)a->shape : NULL; /* Py_ssize_t is int64_t here (module.c) */
    dl->strides = a->ndim ? a->dl_strides : NULL;
    dl->byte_offset = 0; /* data is element 0, as NumPy and CuPy export it */
}

/* The deleters run once, on whatever thread the consumer frees the tensor:
 * the struct is malloc'd so it can be freed without the GIL; mv_unlend takes
 * the GIL for the array (or leaks it at interpreter shutdown). */
static void
versioned_deleter(DLManagedTensorVersioned *t)
{
    PyObject *owner = (PyObject *)t->manager_ctx;
    free(t);
    mv_unlend(owner);
}

static void
legacy_deleter(DLManagedTensor *t)
{
    PyObject *owner = (PyObject *)t->manager_ctx;
    free(t);
    mv_unlend(owner);
}

/* A capsule nobody consumed still owns its tensor; a consumer that took the
 * tensor renamed the capsule to "used_...", and then there is nothing to do. */
static void
versioned_capsule_destructor(PyObject *cap)
{
    if (!PyCapsule_IsValid(cap, MV_DLPACK_VERSIONED_CAPSULE))
        return;
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(cap, MV_DLPACK_VERSIONED_CAPSULE);
    if (t->deleter != NULL)
        t->deleter(t);
}

static void
legacy_capsule_destructor(PyObject *cap)
{
    if (!PyCapsule_IsValid(cap, MV_DLPACK_CAPSULE))
        return;
    DLManagedTensor *t = PyCapsule_GetPointer(cap, MV_DLPACK_CAPSULE);
    if (t->deleter != NULL)
        t->deleter(t);
}

/* new_versioned lends a to a new versioned tensor. */
static DLManagedTensorVersioned *
new_versioned(MVArray *a, DLDevice dev, uint32_t minor, int copied)
{
    DLManagedTensorVersioned *t = malloc(sizeof *t);
    if (t == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    t->version = (DLPackVersion){DLPACK_MAJOR_VERSION, minor};
    t->manager_ctx = a;
    t->deleter = versioned_deleter;
    t->flags = (a->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) | (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
    fill_tensor(a, &t->dl_tensor, dev);
    mv_lend(a);
    return t;
}

static PyObject *
export_capsule(MVArray *a, DLDevice dev, int versioned, uint32_t minor, int copied)
{
    if (versioned) {
        DLManagedTensorVersioned *t = new_versioned(a, dev, minor, copied);
        if (t == NULL)
            return NULL;
        PyObject *cap = PyCapsule_New(t, MV_DLPACK_VERSIONED_CAPSULE, versioned_capsule_destructor);
        if (cap == NULL)
            versioned_deleter(t);
        return cap;
    }
    DLManagedTensor *t = malloc(sizeof *t);
    if (t == NULL)
        return PyErr_NoMemory();
    t->manager_ctx = a;
    t->deleter = legacy_deleter;
    fill_tensor(a, &t->dl_tensor, dev);
    mv_lend(a);
    PyObject *cap = PyCapsule_New(t, MV_DLPACK_CAPSULE, legacy_capsule_destructor);
    if (cap == NULL)
        legacy_deleter(t);
    return cap;
}

/* The last tuples int_pair read, by identity (a tuple never changes; consumers
 * such as NumPy pass the same max_version tuple on every call): held, so that
 * the address cannot be reused by another object. */
static struct {
    PyObject *tuple;
    long x, y;
} pairs[2];
static int pair_next;

/* int_pair reads a tuple of two ints (max_version, dl_device). */
static int
int_pair(PyObject *o, const char *what, long *x, long *y)
{
    for (int k = 0; k < 2; k++)
        if (pairs[k].tuple == o) {
            *x = pairs[k].x;
            *y = pairs[k].y;
            return 0;
        }
    if (!PyTuple_Check(o) || PyTuple_Size(o) != 2) {
        PyErr_Format(PyExc_TypeError, "memview.__dlpack__: %s must be None or a tuple of two ints, not %R", what, o);
        return -1;
    }
    PyObject *a = PyTuple_GetItem(o, 0), *b = PyTuple_GetItem(o, 1);
    if (PyBool_Check(a) || PyBool_Check(b) || !PyIndex_Check(a) || !PyIndex_Check(b)) {
        PyErr_Format(PyExc_TypeError, "memview.__dlpack__: %s must be a tuple of two ints, not %R", what, o);
        return -1;
    }
    *x = PyLong_AsLong(a);
    if (*x == -1 && PyErr_Occurred())
        return -1;
    *y = PyLong_AsLong(b);
    if (*y == -1 && PyErr_Occurred())
        return -1;
    if (PyTuple_CheckExact(o)) { /* a subclass could be mutable in what it reports */
        int k = pair_next++ & 1;
        PyObject *old = pairs[k].tuple;
        Py_INCREF(o);
        pairs[k].tuple = o;
        pairs[k].x = *x;
        pairs[k].y = *y;
        Py_XDECREF(old);
    }
    return 0;
}

/* copy_to makes a Go-owned copy of a on the device named, ordered after the
 * work pending on a. */
static MVArray *
copy_to(MVArray *a, const char *device)
{
    if (mv_check_go() < 0)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc;
    uintptr_t h = mv_array_handle(a);
    if (h == 0)
        return NULL;
    a->busy++;
    NOGIL(1, rc = mv_go_copy_to_device(h, (char *)device, 'K', (uintptr_t)mv_pending_stream(a), 0, &m, &e));
    a->busy--;
    return (MVArray *)mv_finish_meta(rc, &m, &e, NULL);
}

/* stream_order makes the consumer's stream wait, on the device, for the work
 * pending on a (the specification's rule for CUDA; -1 means the consumer
 * orders the work itself). */
static int
stream_order(MVArray *a, long long consumer)
{
    if (mv_check_go() < 0)
        return -1;
    long long p = mv_pending_stream(a);
    /* Nothing pending (an imported array's producer stream counts as pending),
     * or the consumer's stream is the one the work is on. */
    if (consumer == -1 || p == 0 || p == consumer)
        return 0;
    mv_err e;
    uintptr_t h = mv_array_handle(a);
    if (h == 0)
        return -1;
    if (mv_go_stream_wait(h, (uintptr_t)p, (uintptr_t)consumer, &e) != 0) {
        mv_raise(&e);
        return -1;
    }
    return 0;
}

static const char *const dlpack_kw[] = {"stream", "max_version", "dl_device", "copy"};
static PyObject *dlpack_kwnames[4];

PyObject *
mv_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    PyObject *v[4];
    if (mv_parse_kwargs("__dlpack__()", args, nargs, kwnames, dlpack_kwnames, 4, 0, v) < 0)
        return NULL;
    /* max_version: a versioned capsule for consumers of DLPack >= 1.0, at the
     * consumer's minor version if it is older than ours (the layout is the same). */
    int versioned = 0;
    uint32_t minor = DLPACK_MINOR_VERSION;
    if (v[1] != NULL && v[1] != Py_None) {
        long major, mn;
        if (int_pair(v[1], "max_version", &major, &mn) < 0)
            return NULL;
        if (major >= 1) {
            versioned = 1;
            if (major == 1 && mn >= 0 && mn < (long)minor)
                minor = (uint32_t)mn;
        }
    }
    int copy = -1; /* None: copy only if the request needs it */
    if (v[3] != NULL && v[3] != Py_None) {
        if (!PyBool_Check(v[3])) {
            PyErr_Format(PyExc_TypeError, "memview.__dlpack__: copy must be None, True or False, not %R", v[3]);
            return NULL;
        }
        copy = v[3] == Py_True;
    }
    int has_stream = v[0] != NULL && v[0] != Py_None;
    long long stream = 0;
    if (has_stream) {
        if (PyBool_Check(v[0]) || !PyLong_Check(v[0])) {
            PyErr_Format(PyExc_TypeError, "memview.__dlpack__: stream must be None or an int, not %R", v[0]);
            return NULL;
        }
        stream = PyLong_AsLongLong(v[0]);
        if (stream == -1 && PyErr_Occurred())
            return NULL;
    }
    if (mv_check_live(a) < 0)
        return NULL;
    if (!a->dl_ok)
        return refuse_dtype(a), NULL;
    DLDevice own = mv_dl_device(a), dev = own;
    if (v[2] != NULL && v[2] != Py_None) {
        long t, id;
        if (int_pair(v[2], "dl_device", &t, &id) < 0)
            return NULL;
        dev = (DLDevice){(DLDeviceType)t, (int32_t)id};
    }
    int same = dev.device_type == own.device_type && dev.device_id == own.device_id;
    int host_view = !same && copy != 1 && dev.device_type == kDLCPU && dev.device_id == 0 &&
                    a->device_kind != MV_DEV_CUDA; /* pinned or managed memory: the CPU reads it in place */
    int cuda = dev.device_type == kDLCUDA || dev.device_type == kDLCUDAManaged;
    /* stream: CUDA only. None is the legacy default stream; 0 is ambiguous and
     * disallowed; -1 asks for no ordering. Devices without streams take None. */
    if (cuda && has_stream && (stream == 0 || stream < -1)) {
        PyErr_Format(PyExc_ValueError,
                     "memview.__dlpack__: stream %lld is not allowed for CUDA (None or 1: the legacy default "
                     "stream, 2: per-thread default, -1: no synchronisation, or a CUstream)", stream);
        return NULL;
    }
    if (!cuda && dev.device_type != kDLCUDAHost && has_stream && stream != -1) {
        PyErr_Format(PyExc_ValueError, "memview.__dlpack__: stream must be None for memory on the CPU, not %lld",
                     stream);
        return NULL;
    }
    MVArray *src = a, *copied = NULL;
    if (host_view) {
        if (mv_host_wait(a) < 0)
            return NULL;
    } else if (!same || copy == 1) {
        char name[32];
        if (mv_dl_device_name(dev, name, sizeof name) < 0)
            return NULL;
        if (copy == 0) {
            PyErr_Format(PyExc_BufferError,
                         "memview.__dlpack__: the array is on %s; exporting it to %s needs a copy, and "
                         "copy=False forbids one", a->device, name);
            return NULL;
        }
        if ((copied = copy_to(a, name)) == NULL)
            return NULL;
        src = copied;
        dev = mv_dl_device(src);
    }
    PyObject *cap = NULL;
    if (cuda && stream_order(src, has_stream ? stream : 1) < 0)
        goto out;
    if (!versioned && src->readonly && copied == NULL) {
        PyErr_SetString(PyExc_BufferError,
                        "memview.__dlpack__: the array is read-only, and a legacy (unversioned) DLPack "
                        "capsule cannot say so: pass max_version=(1, 0) or higher, or copy=True");
        goto out;
    }
    cap = export_capsule(src, dev, versioned, minor, copied != NULL);
out:
    Py_XDECREF((PyObject *)copied);
    return cap;
}

PyObject *
mv_array_dlpack_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    DLDevice d = mv_dl_device(a);
    return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

/* ---- import ---- */

/* A DLPack tensor memview imported: Go calls release when the last reference
 * to its memory goes, and the producer's deleter runs then, exactly once. */
typedef struct {
    mv_foreign base;
    void *tensor;
    int versioned;
} dl_token;

static void
dl_token_release(mv_foreign *f)
{
    dl_token *t = (dl_token *)f;
    if (t->versioned) {
        DLManagedTensorVersioned *m = t->tensor;
        if (m->deleter != NULL)
            m->deleter(m); /* a deleter takes the GIL itself if it needs it */
    } else {
        DLManagedTensor *m = t->tensor;
        if (m->deleter != NULL)
            m->deleter(m);
    }
    free(t);
}

static dl_token *
new_token(void *tensor, int versioned)
{
    dl_token *t = malloc(sizeof *t);
    if (t == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    t->base.release = dl_token_release;
    t->tensor = tensor;
    t->versioned = versioned;
    return t;
}

/* dl_dtype_name names a DLPack dtype as memview does ("float64", "bool"), the
 * form the Go side parses fastest. */
static int
dl_dtype_name(DLDataType t, char *out, size_t n)
{
    const char *kind = NULL;
    int bits = t.bits;
    switch (t.code) {
    case kDLBool: kind = bits == 8 ? "bool" : NULL; break;
    case kDLInt: kind = (bits == 8 || bits == 16 || bits == 32 || bits == 64) ? "int" : NULL; break;
    case kDLUInt: kind = (bits == 8 || bits == 16 || bits == 32 || bits == 64) ? "uint" : NULL; break;
    case kDLFloat: kind = (bits == 16 || bits == 32 || bits == 64) ? "float" : NULL; break;
    case kDLComplex: kind = (bits == 64 || bits == 128) ? "complex" : NULL; break;
    }
    if (kind == NULL || t.lanes != 1) {
        PyErr_Format(PyExc_BufferError,
                     "memview: the DLPack dtype (code %d, %d bits, %d lanes) has no memview dtype "
                     "(bfloat16, the float8/6/4 types and vector lanes are not supported)",
                     (int)t.code, bits, (int)t.lanes);
        return -1;
    }
    if (t.code == kDLBool)
        snprintf(out, n, "bool");
    else
        snprintf(out, n, "%s%d", kind, bits);
    return 0;
}

/* import_tensor hands a tensor's memory to Go, which owns token from then on.
 * -1 with an exception when it cannot; the caller still owns token then. */
static int
import_tensor(const DLTensor *dl, int readonly, dl_token *token, mv_meta *m)
{
    if (mv_check_go() < 0)
        return -1;
    const char *who = "memview.from_dlpack";
    if (dl->ndim < 0 || dl->ndim > MV_MAXDIM) {
        PyErr_Format(PyExc_BufferError, "%s: %d dimensions (at most %d)", who, (int)dl->ndim, MV_MAXDIM);
        return -1;
    }
    char dtype[16];
    if (dl_dtype_name(dl->dtype, dtype, sizeof dtype) < 0)
        return -1;
    int kind, id = 0;
    switch (dl->device.device_type) {
    case kDLCPU: kind = MV_DEV_CPU; break;
    case kDLCUDA: kind = MV_DEV_CUDA; id = dl->device.device_id; break;
    case kDLCUDAHost: kind = MV_DEV_CUDA_HOST; break;
    case kDLCUDAManaged: kind = MV_DEV_CUDA_MANAGED; id = dl->device.device_id; break;
    default:
        PyErr_Format(PyExc_BufferError, "%s: DLPack device type %d is not CPU or CUDA memory", who,
                     (int)dl->device.device_type);
        return -1;
    }
    if (dl->ndim > 0 && dl->shape == NULL) {
        PyErr_Format(PyExc_BufferError, "%s: the tensor has %d dimensions and no shape", who, (int)dl->ndim);
        return -1;
    }
    int64_t itemsize = dl->dtype.bits / 8, strides[MV_MAXDIM], *sp = NULL;
    for (int i = 0; i < dl->ndim; i++) {
        if (dl->shape[i] < 0) {
            PyErr_Format(PyExc_BufferError, "%s: negative extent %lld in axis %d", who, (long long)dl->shape[i], i);
            return -1;
        }
    }
    if (dl->ndim > 0 && dl->strides != NULL) { /* NULL: C order (allowed before DLPack 1.2) */
        for (int i = 0; i < dl->ndim; i++) {
            int64_t s = dl->strides[i];
            if (s > INT64_MAX / 16 || s < -(INT64_MAX / 16)) {
                PyErr_Format(PyExc_BufferError, "%s: stride %lld of axis %d is out of range", who, (long long)s, i);
                return -1;
            }
            strides[i] = s * itemsize; /* elements to bytes, at this one boundary */
        }
        sp = strides;
    }
    uintptr_t ptr = (uintptr_t)dl->data + (uintptr_t)dl->byte_offset;
    mv_err e;
    if (mv_go_import_foreign(ptr, dl->ndim, dl->shape, sp, dtype, readonly, kind, id, token, (char *)who, m,
                            &e) != 0) {
        mv_raise(&e);
        return -1;
    }
    return 0;
}

/* import_capsule takes the tensor out of a DLPack capsule (renaming it "used_")
 * and wraps its memory; base is what the array reports as its base. */
static PyObject *
import_capsule(PyObject *cap, PyObject *base)
{
    int versioned;
    if (PyCapsule_IsValid(cap, MV_DLPACK_VERSIONED_CAPSULE))
        versioned = 1;
    else if (PyCapsule_IsValid(cap, MV_DLPACK_CAPSULE))
        versioned = 0;
    else if (PyCapsule_CheckExact(cap)) {
        const char *name = PyCapsule_GetName(cap);
        PyErr_Clear();
        PyErr_Format(PyExc_BufferError,
                     "memview.from_dlpack: the capsule is named %s, not \"dltensor_versioned\" or \"dltensor\" "
                     "(a DLPack capsule can be consumed only once)", name ? name : "NULL");
        return NULL;
    } else {
        PyErr_Format(PyExc_TypeError, "memview.from_dlpack: __dlpack__ returned %R, not a PyCapsule", cap);
        return NULL;
    }
    const char *name = versioned ? MV_DLPACK_VERSIONED_CAPSULE : MV_DLPACK_CAPSULE;
    void *p = PyCapsule_GetPointer(cap, name);
    if (p == NULL)
        return NULL;
    const DLTensor *dl;
    int readonly = 0;
    if (versioned) {
        DLManagedTensorVersioned *t = p;
        if (t->version.major != DLPACK_MAJOR_VERSION) {
            /* Left unconsumed: the producer's capsule destructor calls the deleter. */
            PyErr_Format(PyExc_BufferError, "memview.from_dlpack: DLPack version %u.%u is not supported (1.x is)",
                         t->version.major, t->version.minor);
            return NULL;
        }
        dl = &t->dl_tensor;
        readonly = (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    } else {
        dl = &((DLManagedTensor *)p)->dl_tensor;
    }
    PyObject *fast = mv_dl_import_host(p, versioned, dl, readonly, base); /* host memory: no Go */
    if (fast == NULL && PyErr_Occurred())
        return NULL;
    if (fast != NULL)
        goto consumed;
    dl_token *tok = new_token(p, versioned);
    if (tok == NULL)
        return NULL;
    mv_meta m;
    if (import_tensor(dl, readonly, tok, &m) < 0) {
        free(tok);
        return NULL;
    }
    fast = mv_new_array(&m, base);
consumed:
    /* Go or the keeper owns the tensor now: the capsule must never call the deleter. */
    if (PyCapsule_SetName(cap, versioned ? MV_DLPACK_VERSIONED_USED_CAPSULE : MV_DLPACK_USED_CAPSULE) < 0)
        PyErr_Clear(); /* cannot fail for a valid capsule */
    return fast;
}

static const char *const from_kw[] = {"x", "device", "copy"};
static PyObject *from_kwnames[3];
static PyObject *str_dlpack, *str_max_version, *str_dl_device, *str_copy;
static PyObject *kwargs_plain; /* {"max_version": (1, 3)}, never handed out mutable */

/* dl_device_arg reads from_dlpack's device: a memview device name ("cpu",
 * "cuda", "cuda:N", "cuda_host", "cuda_managed[:N]") or a DLPack (type, id)
 * pair, as a new (type, id) tuple. */
static PyObject *
dl_device_arg(PyObject *device)
{
    if (PyTuple_Check(device)) {
        Py_INCREF(device);
        return device;
    }
    const char *s = PyUnicode_Check(device) ? PyUnicode_AsUTF8AndSize(device, NULL) : NULL;
    if (s == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "memview.from_dlpack: device must be a str such as 'cpu' or 'cuda:0', "
                     "or a DLPack (device_type, device_id) tuple, not %R", device);
        return NULL;
    }
    static const struct {
        const char *prefix;
        int type;
    } kinds[] = {{"cuda_managed", kDLCUDAManaged}, {"cuda_host", kDLCUDAHost}, {"cuda", kDLCUDA}, {"cpu", kDLCPU}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].prefix);
        if (strncmp(s, kinds[i].prefix, n) != 0)
            continue;
        const char *rest = s + n;
        if (*rest == 0)
            return Py_BuildValue("(ii)", kinds[i].type, 0);
        if (*rest == ':' && (kinds[i].type == kDLCUDA || kinds[i].type == kDLCUDAManaged) && rest[1] >= '0' &&
            rest[1] <= '9') {
            char *end;
            long id = strtol(rest + 1, &end, 10);
            if (*end == 0 && id < 1 << 20)
                return Py_BuildValue("(il)", kinds[i].type, id);
        }
        break;
    }
    PyErr_Format(PyExc_ValueError, "memview.from_dlpack: unknown device %R (want \"cpu\", \"cuda[:N]\", "
                 "\"cuda_host\" or \"cuda_managed[:N]\")", device);
    return NULL;
}

/* no_dlpack raises the TypeError for an object without __dlpack__. */
static PyObject *
no_dlpack(PyObject *x)
{
    PyObject *name = PyType_GetName(Py_TYPE(x));
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "memview.from_dlpack: %R object has no __dlpack__", name);
    Py_XDECREF(name);
    return NULL;
}

/* call_dlpack_plain asks x for its tensor without device or copy:
 * x.__dlpack__(max_version=(1, 3)), or x.__dlpack__() for a producer older
 * than DLPack 1.0. The call is PyObject_VectorcallMethod's, which makes no
 * bound method and no keyword dict: that is most of the cost of an import.
 * That function is in the stable ABI from Python 3.12; 3.11 has it with the
 * same signature, outside the limited API this extension is written to. So
 * it is looked up in the running interpreter (mv_dlpack_resolve_call), never
 * linked against: where it is not found, the call goes through a bound method
 * and a keyword dict as on any other path. */
typedef PyObject *(*vectorcall_method_fn)(PyObject *name, PyObject *const *args, size_t nargsf,
                                          PyObject *kwnames);
static vectorcall_method_fn vectorcall_method;
#define MV_VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1))

static void
resolve_vectorcall_method(void)
{
    vectorcall_method = (vectorcall_method_fn)dlsym(RTLD_DEFAULT, "PyObject_VectorcallMethod");
}

int
mv_dlpack_selftest_vectorcall(int on)
{
    if (on)
        resolve_vectorcall_method();
    else
        vectorcall_method = NULL;
    return vectorcall_method != NULL;
}

static PyObject *kwnames_plain; /* ("max_version",) */
static PyObject *version_plain; /* (1, 3) */

static PyObject *
call_dlpack_plain(PyObject *x)
{
    PyObject *cap;
    if (vectorcall_method == NULL) {
        PyObject *method = PyObject_GetAttr(x, str_dlpack);
        if (method == NULL) {
            if (PyErr_ExceptionMatches(PyExc_AttributeError))
                no_dlpack(x);
            return NULL;
        }
        PyObject *empty = PyTuple_New(0);
        cap = empty != NULL ? PyObject_Call(method, empty, kwargs_plain) : NULL;
        Py_XDECREF(empty);
        if (cap == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
            /* A producer older than DLPack 1.0 takes no max_version: ask for the legacy form. */
            PyErr_Clear();
            cap = PyObject_CallNoArgs(method);
        }
        Py_DECREF(method);
        return cap;
    }
    PyObject *argv[3] = {NULL, x, version_plain}; /* argv[0]: the slot MV_VECTORCALL_ARGUMENTS_OFFSET lends */
    cap = vectorcall_method(str_dlpack, argv + 1, 1 | MV_VECTORCALL_ARGUMENTS_OFFSET, kwnames_plain);
    if (cap != NULL)
        return cap;
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        /* No __dlpack__ at all, or an AttributeError raised inside it? */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *method = PyObject_GetAttr(x, str_dlpack);
        if (method == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            return no_dlpack(x);
        }
        Py_XDECREF(method);
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* A producer older than DLPack 1.0 takes no max_version: ask for the legacy form. */
        PyErr_Clear();
        return PyObject_CallMethodObjArgs(x, str_dlpack, NULL);
    }
    return NULL;
}

/* call_dlpack asks x for its tensor with device and copy (either may be NULL). */
static PyObject *
call_dlpack(PyObject *x, PyObject *device, PyObject *copy)
{
    PyObject *method = PyObject_GetAttr(x, str_dlpack);
    if (method == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError))
            no_dlpack(x);
        return NULL;
    }
    PyObject *kwargs = NULL, *cap = NULL, *empty = PyTuple_New(0), *dl_device = NULL;
    if (empty == NULL || (kwargs = PyDict_Copy(kwargs_plain)) == NULL ||
        (device != NULL && ((dl_device = dl_device_arg(device)) == NULL ||
                            PyDict_SetItem(kwargs, str_dl_device, dl_device) < 0)) ||
        (copy != NULL && PyDict_SetItem(kwargs, str_copy, copy) < 0))
        goto out;
    cap = PyObject_Call(method, empty, kwargs);
out:
    Py_XDECREF(dl_device);
    Py_XDECREF(kwargs);
    Py_XDECREF(empty);
    Py_DECREF(method);
    return cap;
}

/* from_dlpack(x, /, *, device=None, copy=None) -> Array over x's memory through
 * x.__dlpack__ (or a DLPack capsule itself), without a copy unless the producer
 * makes one (copy=True, or a device it has to move the data to). */
static PyObject *
core_from_dlpack(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)mod;
    PyObject *v[3];
    if (mv_parse_kwargs("memview.from_dlpack()", args, nargs, kwnames, from_kwnames, 3, 1, v) < 0)
        return NULL;
    PyObject *x = v[0], *device = v[1] == Py_None ? NULL : v[1], *copy = v[2] == Py_None ? NULL : v[2];
    if (x == NULL) {
        PyErr_SetString(PyExc_TypeError, "memview.from_dlpack() missing the array argument");
        return NULL;
    }
    if (copy != NULL && !PyBool_Check(copy)) {
        PyErr_Format(PyExc_TypeError, "memview.from_dlpack: copy must be None, True or False, not %R", copy);
        return NULL;
    }
    if (PyCapsule_CheckExact(x))
        return import_capsule(x, NULL);
    PyObject *cap = device == NULL && copy == NULL ? call_dlpack_plain(x) : call_dlpack(x, device, copy);
    if (cap == NULL)
        return NULL;
    PyObject *r = import_capsule(cap, x);
    Py_DECREF(cap);
    return r;
}

PyMethodDef mv_dlpack_functions[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))core_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None)\n--\n\n"
     "An array over the memory of any DLPack producer (NumPy, PyTorch, JAX, CuPy, a memview\n"
     "array, or a DLPack capsule itself), without a copy.\n\n"
     "The producer is asked for a versioned tensor (DLPack 1.x; older producers give the\n"
     "legacy one); its read-only flag, byte_offset, strides and device are honoured, it is\n"
     "kept alive (and reported as base), and its deleter runs exactly once, when the array\n"
     "and every view of it are gone. device (\"cpu\", \"cuda:N\", \"cuda_host\",\n"
     "\"cuda_managed:N\", or a DLPack (type, id) pair) and copy are passed to the producer as\n"
     "the array API standard says: copy=True asks it for a copy, copy=False forbids one, and\n"
     "a device other than the array's asks it to move the data there."},
    {NULL},
};

/* ---- the C exchange table (DLPack 1.3) ---- */

static MVArray *
exchangeable(void *py_object)
{
    PyObject *o = (PyObject *)py_object;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: the DLPack exchange table serves memview arrays only");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    if (!a->dl_ok) {
        refuse_dtype(a);
        return NULL;
    }
    return a;
}

static int
api_managed_from_py(void *py_object, DLManagedTensorVersioned **out)
{
    MVArray *a = exchangeable(py_object);
    if (a == NULL)
        return -1;
    DLManagedTensorVersioned *t = new_versioned(a, mv_dl_device(a), DLPACK_MINOR_VERSION, 0);
    if (t == NULL)
        return -1;
    *out = t;
    return 0;
}

static int
api_dltensor_from_py(void *py_object, DLTensor *out)
{
    MVArray *a = exchangeable(py_object);
    if (a == NULL)
        return -1;
    fill_tensor(a, out, mv_dl_device(a));
    return 0;
}

/* delete_keeping_error runs a refused tensor's deleter (which may be Python code)
 * with the pending exception set aside, then puts it back. */
static void
delete_keeping_error(DLManagedTensorVersioned *t)
{
    if (t->deleter == NULL)
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    t->deleter(t);
    PyErr_Restore(type, value, tb);
}

static int
api_managed_to_py(DLManagedTensorVersioned *t, void **out_py_object)
{
    /* The tensor is ours from here on, whatever happens. */
    if (t->version.major != DLPACK_MAJOR_VERSION) {
        PyErr_Format(PyExc_BufferError, "memview: DLPack version %u.%u is not supported (1.x is)",
                     t->version.major, t->version.minor);
        delete_keeping_error(t);
        return -1;
    }
    int readonly = (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    PyObject *fast = mv_dl_import_host(t, 1, &t->dl_tensor, readonly, NULL); /* host memory: no Go */
    if (fast != NULL) {
        *out_py_object = fast;
        return 0;
    }
    if (PyErr_Occurred()) {
        delete_keeping_error(t);
        return -1;
    }
    dl_token *tok = new_token(t, 1);
    mv_meta m;
    if (tok == NULL || import_tensor(&t->dl_tensor, readonly, tok, &m) < 0) {
        free(tok);
        delete_keeping_error(t);
        return -1;
    }
    PyObject *r = mv_new_array(&m, NULL); /* on failure the handle's release calls the deleter */
    if (r == NULL)
        return -1;
    *out_py_object = r;
    return 0;
}

static int
api_allocator(DLTensor *proto, DLManagedTensorVersioned **out, void *error_ctx,
              void (*SetError)(void *error_ctx, const char *kind, const char *message))
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = -1;
    char dtype[16], device[32];
    int64_t shape[MV_MAXDIM];
    PyObject *arr = NULL;
    if (mv_check_go() < 0)
        goto fail;
    if (proto->ndim < 0 || proto->ndim > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: %d dimensions (at most %d)", (int)proto->ndim, MV_MAXDIM);
        goto fail;
    }
    if (dl_dtype_name(proto->dtype, dtype, sizeof dtype) < 0 ||
        mv_dl_device_name(proto->device, device, sizeof device) < 0)
        goto fail;
    for (int i = 0; i < proto->ndim; i++)
        shape[i] = proto->shape[i];
    mv_meta m;
    mv_err e;
    int r;
    NOGIL(device != NULL && strcmp(device, "cpu") != 0,
          r = mv_go_empty(proto->ndim, shape, dtype, 'C', device, 0, &m, &e));
    if ((arr = mv_finish_meta(r, &m, &e, NULL)) == NULL)
        goto fail;
    DLManagedTensorVersioned *t = new_versioned((MVArray *)arr, mv_dl_device((MVArray *)arr), DLPACK_MINOR_VERSION, 0);
    if (t == NULL)
        goto fail;
    *out = t;
    rc = 0;
    goto done;
fail:
    if (SetError != NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *name = type ? PyType_GetName((PyTypeObject *)type) : NULL;
        PyObject *msg = value ? PyObject_Str(value) : NULL;
        const char *k = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
        const char *s = msg ? PyUnicode_AsUTF8AndSize(msg, NULL) : NULL;
        PyErr_Clear();
        SetError(error_ctx, k ? k : "RuntimeError", s ? s : "memview: allocation failed");
        Py_XDECREF(name);
        Py_XDECREF(msg);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
done:
    Py_XDECREF(arr); /* the tensor holds its own reference */
    PyGILState_Release(st);
    return rc;
}

static int
api_current_work_stream(DLDeviceType device_type, int32_t device_id, void **out)
{
    /* memview's own work defaults to the legacy default stream: the NULL stream. */
    (void)device_type;
    (void)device_id;
    *out = NULL;
    return 0;
}

static const DLPackExchangeAPI exchange_api = {
    .header = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .prev_api = NULL},
    .managed_tensor_allocator = api_allocator,
    .managed_tensor_from_py_object_no_sync = api_managed_from_py,
    .managed_tensor_to_py_object_no_sync = api_managed_to_py,
    .dltensor_from_py_object_no_sync = api_dltensor_from_py,
    .current_work_stream = api_current_work_stream,
};

PyObject *
mv_dlpack_exchange_capsule(void)
{
    if (mv_intern(dlpack_kw, 4, dlpack_kwnames) < 0 || mv_intern(from_kw, 3, from_kwnames) < 0)
        return NULL;
    if (str_dlpack == NULL) {
        str_dlpack = PyUnicode_InternFromString("__dlpack__");
        str_max_version = PyUnicode_InternFromString("max_version");
        str_dl_device = PyUnicode_InternFromString("dl_device");
        str_copy = PyUnicode_InternFromString("copy");
        if (!str_dlpack || !str_max_version || !str_dl_device || !str_copy)
            return NULL;
    }
    if (kwargs_plain == NULL) {
        resolve_vectorcall_method();
        PyObject *version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
        if (version == NULL || (kwargs_plain = PyDict_New()) == NULL ||
            PyDict_SetItem(kwargs_plain, str_max_version, version) < 0 ||
            (kwnames_plain = PyTuple_Pack(1, str_max_version)) == NULL) {
            Py_XDECREF(version);
            Py_CLEAR(kwargs_plain);
            return NULL;
        }
        version_plain = version; /* kept for the life of the process */
    }
    return PyCapsule_New((void *)&exchange_api, MV_DLPACK_EXCHANGE_API_CAPSULE, NULL);
}
