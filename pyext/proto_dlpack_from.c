/*
 * proto_dlpack_from.c — memview._core.from_dlpack: asking the producer for its
 * tensor with one vectorcall (no bound method, no keyword dict), then making a
 * host tensor an array without Go (proto_dlpack_import.c) and handing any
 * other tensor to Go (mv_dl_import_go), which owns it from then on.
 */
#include "proto.h"
#include <dlfcn.h>

/* A DLPack tensor memview imported: Go calls release when the last reference
 * to its memory goes, and the producer's deleter runs then, exactly once. */
static void
dl_token_release(mv_foreign *f)
{
    mv_dl_token *t = (mv_dl_token *)f;
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

mv_dl_token *
mv_dl_new_token(void *tensor, int versioned)
{
    mv_dl_token *t = malloc(sizeof *t);
    if (t == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    t->base.release = dl_token_release;
    t->tensor = tensor;
    t->versioned = versioned;
    return t;
}

/* mv_dl_dtype_name names a DLPack dtype as memview does ("float64", "bool"), the
 * form the Go side parses fastest. */
int
mv_dl_dtype_name(DLDataType t, char *out, size_t n)
{
    const mv_basic *b = t.lanes == 1 && t.bits % 8 == 0 ? mv_basic_of(mv_dl_kind(t.code), t.bits / 8) : NULL;
    if (b == NULL) {
        PyErr_Format(PyExc_BufferError,
                     "memview: the DLPack dtype (code %d, %d bits, %d lanes) has no memview dtype "
                     "(bfloat16, the float8/6/4 types and vector lanes are not supported)",
                     (int)t.code, (int)t.bits, (int)t.lanes);
        return -1;
    }
    snprintf(out, n, "%s", b->name);
    return 0;
}

/* mv_dl_import_go hands a tensor's memory to Go, which owns token from then on.
 * -1 with an exception when it cannot; the caller still owns token then. */
int
mv_dl_import_go(const DLTensor *dl, int readonly, mv_dl_token *token, mv_meta *m)
{
    if (mv_check_go() < 0)
        return -1;
    const char *who = "memview.from_dlpack";
    if (dl->ndim < 0 || dl->ndim > MV_MAXDIM) {
        PyErr_Format(PyExc_BufferError, "%s: %d dimensions (at most %d)", who, (int)dl->ndim, MV_MAXDIM);
        return -1;
    }
    char dtype[16];
    if (mv_dl_dtype_name(dl->dtype, dtype, sizeof dtype) < 0)
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
    mv_dl_token *tok = mv_dl_new_token(p, versioned);
    if (tok == NULL)
        return NULL;
    mv_meta m;
    if (mv_dl_import_go(dl, readonly, tok, &m) < 0) {
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
 * it is looked up in the running interpreter (resolve_vectorcall_method), never
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

int
mv_dlpack_from_init(void)
{
    if (mv_intern(from_kw, 3, from_kwnames) < 0)
        return -1;
    if (str_dlpack == NULL) {
        str_dlpack = PyUnicode_InternFromString("__dlpack__");
        str_max_version = PyUnicode_InternFromString("max_version");
        str_dl_device = PyUnicode_InternFromString("dl_device");
        str_copy = PyUnicode_InternFromString("copy");
        if (!str_dlpack || !str_max_version || !str_dl_device || !str_copy)
            return -1;
    }
    if (kwargs_plain == NULL) {
        resolve_vectorcall_method();
        PyObject *version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
        if (version == NULL || (kwargs_plain = PyDict_New()) == NULL ||
            PyDict_SetItem(kwargs_plain, str_max_version, version) < 0 ||
            (kwnames_plain = PyTuple_Pack(1, str_max_version)) == NULL) {
            Py_XDECREF(version);
            Py_CLEAR(kwargs_plain);
            return -1;
        }
        version_plain = version; /* kept for the life of the process */
    }
    return 0;
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
