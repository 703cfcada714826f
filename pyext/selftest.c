//go:build memview_selftest

/*
 * selftest.c — memview._core functions of the test build only (build.py test,
 * -tags memview_selftest); selftest_off.go stands in for them in the product.
 */
#include "capi.h"
#include "_cgo_export.h"

/* _selftest_panic(): runs a Go function that panics, to prove the panic is
 * recovered and surfaces as SystemError instead of aborting the interpreter. */
static PyObject *
core_selftest_panic(PyObject *mod, PyObject *unused)
{
    if (mv_check_go() < 0)
        return NULL;
    mv_err e;
    if (mvgo_selftest_panic(&e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* _selftest_fork_scan_bit(on) -> bool: while on, each fork's prepare leaves the
 * forking goroutine's scan bit set, as Go's sysmon holds it during a visit (the
 * parent clears it again); returns whether the forked-child repair is armed for
 * the next fork (fork.go found and checked the status word). */
static PyObject *
core_selftest_fork_scan_bit(PyObject *mod, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    return PyBool_FromLong(mv_fork_selftest_scan_bit(on));
}

/* _selftest_fork_last_wait() -> (quiet, idle_looked_at, busy_at_fork, p_taken_at_fork,
 * reacquired) of the last fork's wait: quiet 1, 2 (quiet but for a busy P), 0 (timed
 * out) or -1 (not looked at); in a child, whether a P other than the forking thread's
 * was busy at the fork and whether the monitor had taken the forking thread's P (-1:
 * not looked at); the times the wait entered Go again for a P. */
static PyObject *
core_selftest_fork_last_wait(PyObject *mod, PyObject *unused)
{
    return mv_fork_selftest_last_wait();
}

/* _selftest_fork_child_finds(what) -> bool: every forked child finds, at the
 * fork, what is named: "heap_lock" (the heap's lock held, as if a goroutine of
 * another thread held it) or None (what the fork left); returns whether that
 * can be found here (fork.go found the heap's lock word). */
static PyObject *
core_selftest_fork_child_finds(PyObject *mod, PyObject *arg)
{
    int what;
    if (arg == Py_None)
        what = 0;
    else if (PyUnicode_Check(arg) && PyUnicode_CompareWithASCIIString(arg, "heap_lock") == 0)
        what = 1;
    else {
        PyErr_SetString(PyExc_ValueError, "_selftest_fork_child_finds: 'heap_lock' or None");
        return NULL;
    }
    return PyBool_FromLong(mv_fork_selftest_child_finds(what));
}

/* _selftest_dlpack_vectorcall(on) -> bool: from_dlpack asks producers with
 * PyObject_VectorcallMethod (on) or through a bound method (off) */
static PyObject *
core_selftest_dlpack_vectorcall(PyObject *mod, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    return PyBool_FromLong(mv_dlpack_selftest_vectorcall(on));
}

static PyMethodDef selftest_methods[] = {
    {"_selftest_panic", core_selftest_panic, METH_NOARGS, "raise SystemError from a recovered Go panic"},
    {"_selftest_fork_scan_bit", core_selftest_fork_scan_bit, METH_O,
     "_selftest_fork_scan_bit(on) -> bool: forks happen with the scan bit held"},
    {"_selftest_fork_last_wait", core_selftest_fork_last_wait, METH_NOARGS,
     "_selftest_fork_last_wait() -> (quiet, idle_looked_at, busy_at_fork, p_taken_at_fork, "
     "reacquired): the last fork's wait"},
    {"_selftest_fork_child_finds", core_selftest_fork_child_finds, METH_O,
     "_selftest_fork_child_finds(what) -> bool: forked children find 'heap_lock' held"},
    {"_selftest_dlpack_vectorcall", core_selftest_dlpack_vectorcall, METH_O,
     "_selftest_dlpack_vectorcall(on) -> bool: how from_dlpack calls producers"},
    {"_c_layout", mv_selftest_c_layout, METH_VARARGS,
     "_c_layout(a, op, arg) -> (shape, strides, offset, scalar, c, f) or None: views.c's layout"},
    {NULL},
};

int
mv_add_selftests(PyObject *mod)
{
    return PyModule_AddFunctions(mod, selftest_methods);
}
