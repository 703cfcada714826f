//go:build memview_selftest

/*
 * selftest.c — memview._core functions of the test build only (build.py test,
 * -tags memview_selftest); selftest_off.go stands in for them in the product.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "module.h"

/* _selftest_panic(): runs a Go function that panics, to prove the panic is
 * recovered and surfaces as SystemError instead of aborting the interpreter. */
static PyObject *
core_selftest_panic(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    if (mv_check_go() < 0)
        return NULL;
    mv_err e;
    if (mv_go_selftest_panic(&e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* ---- a forked child that enters Go crashes instead of hanging ----
 *
 * The test build makes the Go code of the extension unexecutable in every forked
 * child, right after the fork (go_fork.c's child hook): any call into Go there then
 * dies with SIGSEGV at once, where in a product build it could wait forever, so no
 * test can miss an entry into Go. Every call from C into Go goes through cgo's
 * crosscall2 and then the Go half of an exported function (_cgoexp_...); the
 * range protected runs from the lowest to the highest of those, read from the
 * extension's own dynamic symbol table, so it holds crosscall2 and every
 * function Go exports. The Go linker lays its code out as one block, so nothing
 * of the C in the extension lies inside it. */
static uintptr_t go_text_lo, go_text_hi;
static int go_text_kept; /* MEMVIEW_SELFTEST_GO_EXECUTABLE: leave it executable */

/* cgo's C-to-Go entry (runtime/cgo), which every exported Go function's C half calls. */
extern void crosscall2(void (*fn)(void *), void *a, int c, size_t ctxt);

static int
go_symbol(const char *name)
{
    return strncmp(name, "_cgoexp_", 8) == 0 || strcmp(name, "crosscall2") == 0 ||
           strcmp(name, "_cgo_topofstack") == 0 || strcmp(name, "_cgo_panic") == 0;
}

/* find_go_text sets go_text_lo and go_text_hi (page-aligned, inward) from the
 * .dynsym section of the extension's file; 0, or -1 with an exception. */
static int
find_go_text(void)
{
    Dl_info info;
    if (dladdr((void *)&mv_add_selftests, &info) == 0 || info.dli_fname == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_selftest: dladdr found no file for the extension");
        return -1;
    }
    int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, info.dli_fname);
        return -1;
    }
    const unsigned char *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f == MAP_FAILED) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
        const char *names = (const char *)(f + sh[sh[i].sh_link].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < n; k++) {
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_shndx == SHN_UNDEF ||
                !go_symbol(names + sym[k].st_name))
                continue;
            if (sym[k].st_value < lo)
                lo = sym[k].st_value;
            if (sym[k].st_value + sym[k].st_size > hi)
                hi = sym[k].st_value + sym[k].st_size;
        }
    }
    munmap((void *)f, (size_t)st.st_size);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), base = (uintptr_t)info.dli_fbase;
    if (hi <= lo) {
        PyErr_SetString(PyExc_RuntimeError, "_selftest: no Go functions in the extension's symbol table");
        return -1;
    }
    go_text_kept = getenv("MEMVIEW_SELFTEST_GO_EXECUTABLE") != NULL;
    go_text_lo = (base + lo + page - 1) & ~(page - 1);
    go_text_hi = (base + hi) & ~(page - 1);
    uintptr_t entry = (uintptr_t)(void *)&crosscall2;
    if (!(go_text_lo <= entry && entry < go_text_hi)) {
        PyErr_SetString(PyExc_RuntimeError, "_selftest: crosscall2 lies outside the Go code found");
        return -1;
    }
    return 0;
}

static void
protect_go_text(void)
{
    if (!go_text_kept)
        mprotect((void *)go_text_lo, go_text_hi - go_text_lo, PROT_NONE);
}

/* _selftest_go_text() -> (start, end): the addresses a forked child protects */
static PyObject *
core_selftest_go_text(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    return Py_BuildValue("(KK)", (unsigned long long)go_text_lo, (unsigned long long)go_text_hi);
}

/* _selftest_dlpack_vectorcall(on) -> bool: from_dlpack asks producers with
 * PyObject_VectorcallMethod (on) or through a bound method (off) */
static PyObject *
core_selftest_dlpack_vectorcall(PyObject *mod, PyObject *arg)
{
    (void)mod;
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    return PyBool_FromLong(mv_dlpack_selftest_vectorcall(on));
}

/* ---- the Go core's views: the oracle of C's layouts (tests/test_views_c.py) ---- */

/* _go_view(a, key: tuple of 7-int tuples, as tests/test_views_c.py encodes a
 * basic-indexing key) -> the Go core's Array.Index view */
static PyObject *
core_go_view(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *key;
    if (!PyArg_ParseTuple(args, "OO!", &o, &PyTuple_Type, &key))
        return NULL;
    MVArray *a = mv_live_array(o, "array");
    if (a == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_Size(key);
    if (n > 2 * MV_MAXDIM) {
        PyErr_SetString(PyExc_IndexError, "memview: too many indices");
        return NULL;
    }
    mv_index idx[2 * MV_MAXDIM];
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t f[7];
        PyObject *item = PyTuple_GetItem(key, i);
        if (!PyTuple_Check(item) || PyTuple_Size(item) != 7) {
            PyErr_SetString(PyExc_TypeError, "memview: malformed index key");
            return NULL;
        }
        if (mv_int64_tuple(item, f, "index") < 0)
            return NULL;
        idx[i] = (mv_index){.kind = f[0], .value = f[1], .start = f[2], .stop = f[3],
                            .step = f[4], .has_start = f[5], .has_stop = f[6]};
    }
    mv_meta m;
    mv_err e;
    int rc = mv_go_index(mv_go_handle(a), (int)n, idx, &m, &e);
    return mv_finish_meta(rc, &m, &e, mv_view_base(a));
}

/* array and tuple of ints, for _go_transpose and _go_reshape */
static MVArray *
array_and_ints(PyObject *args, int64_t *out, int *n, const char *what)
{
    PyObject *o, *t;
    if (!PyArg_ParseTuple(args, "OO", &o, &t))
        return NULL;
    MVArray *a = mv_live_array(o, "array");
    if (a == NULL || (*n = mv_int64_tuple(t, out, what)) < 0)
        return NULL;
    return a;
}

/* _go_transpose(a, axes: tuple) -> the Go core's Array.Transpose view */
static PyObject *
core_go_transpose(PyObject *mod, PyObject *args)
{
    (void)mod;
    int64_t axes[MV_MAXDIM];
    int n;
    MVArray *a = array_and_ints(args, axes, &n, "axes");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc = mv_go_transpose(mv_go_handle(a), n, axes, &m, &e);
    return mv_finish_meta(rc, &m, &e, mv_view_base(a));
}

/* _go_reshape(a, shape: tuple) -> the Go core's Array.Reshape view */
static PyObject *
core_go_reshape(PyObject *mod, PyObject *args)
{
    (void)mod;
    int64_t shape[MV_MAXDIM];
    int n;
    MVArray *a = array_and_ints(args, shape, &n, "shape");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc = mv_go_reshape(mv_go_handle(a), n, shape, &m, &e);
    return mv_finish_meta(rc, &m, &e, mv_view_base(a));
}

static PyMethodDef selftest_methods[] = {
    {"_go_view", core_go_view, METH_VARARGS, "_go_view(a, key) -> the Go core's basic-indexing view"},
    {"_go_transpose", core_go_transpose, METH_VARARGS, "_go_transpose(a, axes) -> the Go core's view"},
    {"_go_reshape", core_go_reshape, METH_VARARGS, "_go_reshape(a, shape) -> the Go core's view"},
    {"_selftest_panic", core_selftest_panic, METH_NOARGS, "raise SystemError from a recovered Go panic"},
    {"_selftest_go_text", core_selftest_go_text, METH_NOARGS,
     "_selftest_go_text() -> (start, end): the Go code a forked child makes unexecutable"},
    {"_selftest_dlpack_vectorcall", core_selftest_dlpack_vectorcall, METH_O,
     "_selftest_dlpack_vectorcall(on) -> bool: how from_dlpack calls producers"},
    {"_c_layout", mv_selftest_c_layout, METH_VARARGS,
     "_c_layout(a, op, arg) -> (shape, strides, offset, scalar, c, f): core_layouts.c's layout, or its error"},
    {NULL},
};

int
mv_add_selftests(PyObject *mod)
{
    if (find_go_text() < 0)
        return -1;
    mv_fork_child_hook = protect_go_text;
    return PyModule_AddFunctions(mod, selftest_methods);
}
