/*
 * gopy_fast.c — what the call entries generated for bound Go packages call
 * (gopy_fast.h has the contract; gopyfast.py writes the entries), and
 * memview._core.go_fast, which makes the built-in function of one entry.
 *
 * An entry takes the common case itself — arguments bound by position or by
 * the Go parameter names, a writable C-contiguous buffer of the Go element
 * type for a []T, any host buffer for a *memview.Array, numbers, bools and
 * str for the scalars — and hands every other call, unchanged, to the
 * function's gopy path, the callable it is made with (its __self__): that
 * path raises today's errors for a missing argument, an unexpected keyword,
 * a read-only or non-contiguous array, and takes what only it can (gopy's
 * own slices, CUDA memory, goRun=True).
 */
#include <stdlib.h>
#include <string.h>
#include "gopy.h"

/* The generated table, by Python name; absent from a build without bound
 * packages (or with none the entries cover). */
extern const mv_fast_def mv_fast_defs[] __attribute__((weak));

PyObject *
mv_fast_forked(const char *cname)
{
    char what[200];
    PyOS_snprintf(what, sizeof what, "the bound Go function %s", cname);
    return mv_raise_forked(what);
}

/* mv_fast_bind puts the arguments of a vectorcall into out[0..n) by the
 * parameter names (NULL where none is given). Returns 0, or -1 (no exception
 * set) where the call is not one the entry binds: too many positional
 * arguments, a keyword that is no parameter's or a parameter given twice. */
int
mv_fast_bind(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names, int n,
             PyObject **out)
{
    if (nargs > n)
        return -1;
    for (int i = 0; i < n; i++)
        out[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GetItem(kwnames, k);
        int i = 0;
        while (i < n && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
            i++;
        if (i == n || out[i] != NULL)
            return -1;
        out[i] = args[nargs + k];
    }
    return 0;
}

/* mv_fast_fallback calls fn, the function's gopy path, with the arguments of
 * a vectorcall. */
PyObject *
mv_fast_fallback(PyObject *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    PyObject *pos = PyTuple_New(nargs);
    PyObject *kw = nkw ? PyDict_New() : NULL;
    PyObject *out = NULL;
    if (pos == NULL || (nkw && kw == NULL))
        goto done;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SetItem(pos, i, args[i]);
    }
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyDict_SetItem(kw, PyTuple_GetItem(kwnames, k), args[nargs + k]) < 0)
            goto done;
    out = PyObject_Call(fn, pos, kw);
done:
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    return out;
}

/* mv_fast_method_fallback calls fn, a method's gopy path (gopy's method of
 * the class, a Python function), with self and the arguments of a
 * vectorcall. */
PyObject *
mv_fast_method_fallback(PyObject *fn, PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (fn == NULL)
        return PyErr_Format(PyExc_SystemError, "memview: a method entry without its gopy path");
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    PyObject *pos = PyTuple_New(nargs + 1);
    PyObject *kw = nkw ? PyDict_New() : NULL;
    PyObject *out = NULL;
    if (pos == NULL || (nkw && kw == NULL))
        goto done;
    PyTuple_SetItem(pos, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SetItem(pos, i + 1, Py_NewRef(args[i]));
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyDict_SetItem(kw, PyTuple_GetItem(kwnames, k), args[nargs + k]) < 0)
            goto done;
    out = PyObject_Call(fn, pos, kw);
done:
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    return out;
}

/* format_in says whether PEP 3118 format f is one of formats ("d\0" or
 * "l\0q\0": a list of NUL-ended names ending in an empty one). */
static int
format_in(const char *f, const char *formats)
{
    for (const char *g = formats; *g; g += strlen(g) + 1)
        if (strcmp(f, g) == 0)
            return 1;
    return 0;
}

/* mv_fast_slice takes o's buffer into view for a []T whose elements are
 * itemsize bytes of one of formats (any format, as bytes, with
 * MV_FAST_ANY_FORMAT): returns 1 (the caller releases view after the call,
 * and frees *copy), or 0 (nothing held, no exception set) where the entry
 * leaves o to the gopy path — no buffer, not C-contiguous, of another format,
 * a ctypes object, a memview array off the host's ordinary memory (which waits
 * for the device first), or read-only where flags allow neither taking it
 * (MV_FAST_RO_TAKE) nor a copy (MV_FAST_RO_COPY). *copy is the copy of a
 * read-only buffer made for the call, a new bytearray (the entry keeps it,
 * not o, where Go may keep the memory), else NULL. */
/* plain_type: o's type is made by `type` itself. ctypes' types have
 * metaclasses of their own, and their objects are left to the gopy path, which
 * reads their items from the ctypes type (python/memview/_cdata.py), not from
 * the format ctypes exports. */
static int
plain_type(PyObject *o)
{
    return Py_TYPE((PyObject *)Py_TYPE(o)) == &PyType_Type;
}

int
mv_fast_slice(PyObject *o, const char *formats, Py_ssize_t itemsize, int flags, Py_buffer *view, PyObject **copy)
{
    *copy = NULL;
    if (mv_is_array(o) && ((MVArray *)o)->device_kind != MV_DEV_CPU)
        return 0;
    if (!PyObject_CheckBuffer(o) || !plain_type(o))
        return 0;
    if (PyObject_GetBuffer(o, view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    int any = (flags & MV_FAST_ANY_FORMAT) != 0;
    if (view->ndim == 0 || /* a NumPy scalar, say: no []T (gopy's path says why) */
        (view->readonly && !(flags & (MV_FAST_RO_TAKE | MV_FAST_RO_COPY))) ||
        (!any && (view->itemsize != itemsize || !format_in(view->format ? view->format : "B", formats))) ||
        !PyBuffer_IsContiguous(view, 'C')) {
        PyBuffer_Release(view);
        return 0;
    }
    if (view->readonly && !(flags & MV_FAST_RO_TAKE)) {
        /* Go may store into it, as far as the analysis can tell: a copy for the call */
        if ((*copy = PyByteArray_FromStringAndSize(view->buf, view->len)) == NULL) {
            PyErr_Clear();
            PyBuffer_Release(view);
            return 0;
        }
    }
    return 1;
}

/* mv_fast_array takes o's buffer, for a *memview.Array, into a new
 * mv_fast_lent (*lent) whose Py_buffer Go adopts (gopyrt.ImportBuffer) and
 * gives back, during the call through the entry, after it through
 * mv_fast_give_back; returns 1, or 0 (nothing held, no exception set) where
 * the entry leaves o to the gopy path: a memview array (lent as a view of its
 * own buffer there), a ctypes object, an object without a host buffer,
 * PIL-style suboffsets. */
int
mv_fast_array(PyObject *o, mv_fast_lent **lent)
{
    *lent = NULL;
    if (mv_is_array(o) || !PyObject_CheckBuffer(o) || !plain_type(o))
        return 0;
    mv_fast_lent *l = PyMem_Malloc(sizeof(mv_fast_lent));
    if (l == NULL)
        return 0;
    l->state = 0;
    if (PyObject_GetBuffer(o, &l->view, PyBUF_FULL_RO) < 0) {
        PyErr_Clear();
        PyMem_Free(l);
        return 0;
    }
    for (int i = 0; l->view.suboffsets != NULL && i < l->view.ndim; i++) {
        if (l->view.suboffsets[i] >= 0) {
            mv_fast_release_array(l);
            return 0;
        }
    }
    *lent = l;
    return 1;
}

/* mv_fast_handle reads the handle of a gopy object o (its int attribute
 * "handle") into *h: returns 1, or 0 (no exception set) where o has none,
 * which the entry leaves to the gopy path (it raises the TypeError, or the
 * AttributeError of gopy's wrapper). */
int
mv_fast_handle(PyObject *o, int64_t *h)
{
    static PyObject *name; /* "handle", made once (entries run with the GIL) */
    if (name == NULL && (name = PyUnicode_InternFromString("handle")) == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) {
        PyErr_Clear();
        return 0;
    }
    int ok = PyLong_CheckExact(v);
    if (ok) {
        *h = PyLong_AsLongLong(v);
        if (*h == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            ok = 0;
        }
    }
    Py_DECREF(v);
    return ok;
}

/* mv_fast_release_array gives back, holding the GIL, what mv_fast_array
 * took: where Go did not adopt it, or gave it back during the call. */
void
mv_fast_release_array(mv_fast_lent *lent)
{
    if (lent != NULL) {
        PyBuffer_Release(&lent->view);
        PyMem_Free(lent);
    }
}

/* mv_fast_give_back is mv_fast_release_array for Go, which calls it without
 * the GIL when it releases, after the call, the last view it kept of the
 * memory (pyext/gopy_fast.go). Never called in a forked child: Go does not
 * run there. */
void
mv_fast_give_back(void *lent)
{
    PyGILState_STATE st = PyGILState_Ensure();
    mv_fast_release_array(lent);
    PyGILState_Release(st);
}

/* mv_fast_raise raises the exception a shim reported, frees its message, and
 * returns NULL. */
PyObject *
mv_fast_raise(mv_fast_failure *f)
{
    mv_raise_go_error((PyObject *)f->exception, f->message ? f->message : "Go call failed", f->fields);
    free(f->message);
    free(f->fields);
    f->message = f->fields = NULL;
    return NULL;
}

void
mv_raise_go_error(PyObject *cls, const char *msg, const char *fields)
{
    if (fields == NULL) {
        PyErr_SetString(cls, msg);
        return;
    }
    /* the instance, its attributes set from the JSON object (json.loads) */
    PyObject *exc = NULL, *json = NULL, *attrs = NULL;
    PyObject *text = PyUnicode_FromString(msg);
    if (text != NULL)
        exc = PyObject_CallFunctionObjArgs(cls, text, NULL);
    if (exc != NULL)
        json = PyImport_ImportModule("json");
    if (json != NULL)
        attrs = PyObject_CallMethod(json, "loads", "s", fields);
    if (attrs != NULL && PyDict_Check(attrs)) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(attrs, &pos, &k, &v))
            if (PyObject_SetAttr(exc, k, v) < 0)
                break;
    }
    if (!PyErr_Occurred()) /* else the failure to make it is what is raised */
        PyErr_SetObject(cls, exc);
    Py_XDECREF(attrs);
    Py_XDECREF(json);
    Py_XDECREF(exc);
    Py_XDECREF(text);
}

/* mv_fast_named is the int (or bytes) v (a new reference, or NULL) made an
 * instance of cls, the subclass of a named integer or [N]byte type: cls(v). */
PyObject *
mv_fast_named(PyObject *cls, PyObject *v)
{
    if (v == NULL || cls == NULL)
        return v;
    PyObject *out = PyObject_CallFunctionObjArgs(cls, v, NULL);
    Py_DECREF(v);
    return out;
}

/* mv_fast_gopy_result is gopy's object for the Go slice a shim registered
 * under handle (with gopy's own handleFromPtr_Slice_E), made as gopy's
 * wrapper makes it: cls(handle=handle), which takes its reference. */
PyObject *
mv_fast_gopy_result(PyObject *cls, int64_t handle)
{
    PyObject *h = PyLong_FromLongLong(handle);
    PyObject *kw = h ? PyDict_New() : NULL;
    PyObject *none = kw ? PyTuple_New(0) : NULL;
    PyObject *out = NULL;
    if (none != NULL && PyDict_SetItemString(kw, "handle", h) == 0)
        out = PyObject_Call(cls, none, kw);
    Py_XDECREF(none);
    Py_XDECREF(kw);
    Py_XDECREF(h);
    return out;
}

/* drop_meta gives back the array of m, which no Python object took over. */
static void
drop_meta(mv_meta *m)
{
    mv_go_release((uintptr_t)m->handle, NULL);
    free(m->long_format);
    free(m->long_dtype);
}

/* mv_fast_meta_result: a view of the argument the slice lies in holds an
 * export of that object (a memoryview, so that a bytearray cannot be resized
 * under it) as its base; the shim made it read-only where the argument was.
 * Nil is a zero-length array. */
PyObject *
mv_fast_meta_result(void *meta, const mv_fast_input *in, int n)
{
    mv_meta *m = meta;
    PyObject *base = NULL;
    Py_ssize_t len = (Py_ssize_t)m->len;
    for (int i = 0; i < n && len > 0; i++) {
        if (in[i].buf != NULL && m->buf >= in[i].buf && m->buf + len <= in[i].buf + in[i].len) {
            if ((base = PyMemoryView_FromObject(in[i].obj)) == NULL) {
                drop_meta(m);
                return NULL;
            }
            break;
        }
    }
    PyObject *out = mv_new_array(m, base); /* which takes the handle over, or gives it back */
    Py_XDECREF(base);
    return out;
}

/* kept_item is what the gopy path keeps of an argument o lent for a call
 * (python/memview/_gobind.py, _wrap): o, or (o, o) for a memview array (the
 * array whose memory was lent, and the argument it came from). */
static PyObject *
kept_item(PyObject *o)
{
    return mv_is_array(o) ? PyTuple_Pack(2, o, o) : Py_NewRef(o);
}

/* same_kept says whether old, what an earlier call kept, is what this one
 * would keep of lent[0..n). */
static int
same_kept(PyObject *old, PyObject *const *lent, int n)
{
    if (!PyTuple_Check(old) || PyTuple_Size(old) != n)
        return 0;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyTuple_GetItem(old, i);
        if (mv_is_array(lent[i])) {
            if (!PyTuple_Check(x) || PyTuple_Size(x) != 2 || PyTuple_GetItem(x, 0) != lent[i] ||
                PyTuple_GetItem(x, 1) != lent[i])
                return 0;
        } else if (x != lent[i]) {
            return 0;
        }
    }
    return 1;
}

/* mv_fast_keep keeps the arguments lent[0..n) whose memory a call lent Go
 * alive with owner, the gopy object the call returned or the receiver of the
 * method called: Go may keep the slice (gonum's mat.NewDense keeps its data).
 * As on gopy's path (_gobind._keep): in the dict owner._memview_kept, under
 * key, the function's or method's Python name, so that a later call of the
 * same one replaces what the earlier one kept; an owner without a __dict__
 * keeps nothing. Returns 0, or -1 with an exception set. */
int
mv_fast_keep(PyObject *owner, PyObject *key, PyObject *const *lent, int n)
{
    static PyObject *name; /* "_memview_kept" */
    if (key == NULL) {
        PyErr_Format(PyExc_SystemError, "memview: an entry that keeps memory without its key");
        return -1;
    }
    if (name == NULL && (name = PyUnicode_InternFromString("_memview_kept")) == NULL)
        return -1;
    /* an attribute, not owner.__dict__ itself: CPython then keeps the
     * attributes of most objects where it reads them fastest (3.11+) */
    PyObject *kept = PyObject_GetAttr(owner, name);
    if (kept == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        if ((kept = PyDict_New()) == NULL)
            return -1;
        if (PyObject_SetAttr(owner, name, kept) < 0) {
            Py_DECREF(kept);
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                return -1;
            PyErr_Clear(); /* an owner without a __dict__ keeps nothing */
            return 0;
        }
    }
    int rc = -1;
    if (!PyDict_Check(kept)) {
        PyErr_Format(PyExc_TypeError, "memview: _memview_kept of a gopy object is not a dict");
        goto done;
    }
    PyObject *old = PyDict_GetItemWithError(kept, key); /* borrowed */
    if (old == NULL && PyErr_Occurred())
        goto done;
    if (old != NULL && same_kept(old, lent, n)) {
        rc = 0;
        goto done;
    }
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        goto done;
    for (int i = 0; i < n; i++) {
        PyObject *x = kept_item(lent[i]);
        if (x == NULL) {
            Py_DECREF(t);
            goto done;
        }
        PyTuple_SetItem(t, i, x);
    }
    rc = PyDict_SetItem(kept, key, t);
    Py_DECREF(t);
done:
    Py_DECREF(kept);
    return rc;
}

/* find_def is the generated entry of qualname, with its classes set: the
 * gopy class of the Go value it returns (cls, required where it returns
 * one) and the key it keeps lent memory under; NULL with no exception set
 * where the build generated none, NULL with one on an error. */
static const mv_fast_def *
find_def(const char *qualname, PyObject *cls)
{
    for (const mv_fast_def *d = mv_fast_defs; d != NULL && d->qualname != NULL; d++) {
        if (strcmp(d->qualname, qualname) != 0)
            continue;
        if (d->result_class != NULL) {
            if (cls == Py_None) {
                PyErr_Format(PyExc_TypeError, "memview: %s returns a Go value: gopy's class %s is needed",
                             qualname, d->result_class_name);
                return NULL;
            }
            PyObject *old = *d->result_class;
            *d->result_class = Py_NewRef(cls);
            Py_XDECREF(old);
        }
        if (d->keep_key != NULL && *d->keep_key == NULL &&
            (*d->keep_key = PyUnicode_InternFromString(qualname)) == NULL)
            return NULL;
        return d;
    }
    return NULL;
}

/* with_doc is the method definition of entry d with the docstring of its
 * gopy path: its _memview_textdoc (the __text_signature__ line and the
 * docstring, _gobind.present), else its __doc__, or d's own where that has
 * none. The copy lives as long as the process (the entry does). */
static PyMethodDef *
with_doc(const mv_fast_def *d, PyObject *gopy_path)
{
    PyObject *doc = PyObject_GetAttrString(gopy_path, "_memview_textdoc");
    if (doc == NULL) {
        PyErr_Clear();
        doc = PyObject_GetAttrString(gopy_path, "__doc__");
    }
    const char *s = doc != NULL && PyUnicode_Check(doc) ? PyUnicode_AsUTF8AndSize(doc, NULL) : NULL;
    PyErr_Clear();
    if (s == NULL) {
        Py_XDECREF(doc);
        return (PyMethodDef *)&d->def;
    }
    PyMethodDef *def = PyMem_Malloc(sizeof *def);
    char *copy = PyMem_Malloc(strlen(s) + 1);
    if (def == NULL || copy == NULL) {
        PyMem_Free(def);
        PyMem_Free(copy);
        Py_DECREF(doc);
        PyErr_NoMemory();
        return NULL;
    }
    strcpy(copy, s);
    Py_DECREF(doc);
    *def = d->def;
    def->ml_doc = copy;
    return def;
}

/* entry_def parses (qualname, gopy_path, result_class=None) and finds the
 * generated entry of qualname, which must be a method or not as method says:
 * 1 with *d and *fallback set, 0 when the build generated none (no
 * exception), -1 with an exception. */
static int
entry_def(PyObject *args, int method, const mv_fast_def **d, PyObject **fallback)
{
    const char *qualname;
    PyObject *cls = Py_None;
    if (!PyArg_ParseTuple(args, "sO|O", &qualname, fallback, &cls))
        return -1;
    if ((*d = find_def(qualname, cls)) == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (method != ((*d)->method_path != NULL)) {
        PyErr_Format(PyExc_TypeError, method ? "memview: %s is no method: go_fast makes its entry"
                                             : "memview: %s is a method: go_fast_method makes its entry",
                     qualname);
        return -1;
    }
    return 1;
}

/* go_fast(qualname, gopy_path, result_class=None) -> the generated entry of
 * the bound function qualname ("pkg.Func") as a built-in function whose
 * __self__ is gopy_path (the callable it hands the calls it does not take
 * itself), or None when the build generated none for it; result_class is
 * gopy's class of the Go value it returns (required where it returns one). */
static PyObject *
core_go_fast(PyObject *mod, PyObject *args)
{
    (void)mod;
    const mv_fast_def *d;
    PyObject *fallback;
    int rc = entry_def(args, 0, &d, &fallback);
    if (rc <= 0)
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    PyMethodDef *def = with_doc(d, fallback);
    return def ? PyCFunction_NewEx(def, fallback, NULL) : NULL;
}

/* go_fast_method(qualname, gopy_path, result_class=None) -> the generated
 * entry of the bound method qualname ("pkg.Type.Method") as a method
 * descriptor, to be set on gopy's class of the type in place of gopy_path
 * (gopy's method, which it hands the calls it does not take itself), or
 * None when the build generated none for it. The descriptor is one of
 * object's: every receiver reaches the entry, which hands what is no gopy
 * object to gopy's path and has Go check the type of the Go value of the
 * rest, so that a wrong receiver raises what it raises on gopy's path. */
static PyObject *
core_go_fast_method(PyObject *mod, PyObject *args)
{
    (void)mod;
    const mv_fast_def *d;
    PyObject *fallback;
    int rc = entry_def(args, 1, &d, &fallback);
    if (rc <= 0)
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *old = *d->method_path;
    *d->method_path = Py_NewRef(fallback);
    Py_XDECREF(old);
    PyMethodDef *def = with_doc(d, fallback);
    return def ? PyDescr_NewMethod(&PyBaseObject_Type, def) : NULL;
}

/* go_fast_names() -> the Python names ("pkg.Func", "pkg.Type.Method") of the
 * generated entries */
static PyObject *
core_go_fast_names(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *out = PyList_New(0);
    for (const mv_fast_def *d = mv_fast_defs; out != NULL && d != NULL && d->qualname != NULL; d++) {
        PyObject *s = PyUnicode_FromString(d->qualname);
        if (s == NULL || PyList_Append(out, s) < 0)
            Py_CLEAR(out);
        Py_XDECREF(s);
    }
    return out;
}

/* go_sentinels() -> the sentinel errors of the bound packages, one
 * "pkg.Name=pkg.First" line each (pkg.First: the first that is the same
 * error, an alias naming what it copies) */
static PyObject *
core_go_sentinels(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    char *s = mv_go_sentinels(); /* pyext/gopy_errors.go, through the bridge */
    PyObject *out = PyUnicode_FromString(s ? s : "");
    free(s);
    return out;
}

/* go_set_sentinel_class(name, cls) -> whether Go has the sentinel name
 * ("pkg.Name"): a Go error matching it then raises cls, which is kept for
 * good (Go holds its address). */
static PyObject *
core_go_set_sentinel_class(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *name;
    PyObject *cls;
    if (!PyArg_ParseTuple(args, "sO", &name, &cls))
        return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)PyExc_BaseException)) {
        PyErr_SetString(PyExc_TypeError, "memview: go_set_sentinel_class takes an exception class");
        return NULL;
    }
    int found = mv_go_set_sentinel_class((char *)name, cls);
    if (found)
        Py_INCREF(cls); /* Go holds it for good */
    return PyBool_FromLong(found);
}

static PyMethodDef fast_methods[] = {
    {"go_sentinels", core_go_sentinels, METH_NOARGS, "go_sentinels() -> the sentinel errors of the bound packages"},
    {"go_set_sentinel_class", core_go_set_sentinel_class, METH_VARARGS,
     "go_set_sentinel_class(name, cls) -> whether Go has the sentinel name"},
    {"go_fast", core_go_fast, METH_VARARGS, "go_fast(qualname, gopy_path) -> the generated call entry, or None"},
    {"go_fast_method", core_go_fast_method, METH_VARARGS,
     "go_fast_method(qualname, gopy_path) -> the generated call entry of a method (a descriptor), or None"},
    {"go_fast_names", core_go_fast_names, METH_NOARGS, "go_fast_names() -> names of the generated call entries"},
    {NULL},
};

int
mv_add_gopy_fast_functions(PyObject *mod)
{
    return PyModule_AddFunctions(mod, fast_methods);
}
