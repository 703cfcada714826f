/*
 * go_fork.c — a forked child never enters Go.
 *
 * A Go runtime does not survive fork(). The child has one thread, the one that
 * forked, but the runtime still counts the parent's others: its monitor, the
 * collector's workers, the threads that ran goroutines. Anything that hands work
 * to another thread — a goroutine, a timer, a channel, a collection, a copy split
 * over goroutines — then waits forever, and a lock another thread held at the
 * fork stays held (Go supports fork only when exec follows). No reading of the
 * runtime's state can make that safe, so memview does not try:
 *
 *   - pthread_atfork's child handler (on_child) sets mv_in_child. It runs in the
 *     child before fork() returns, before any Python code. The parent does
 *     nothing around a fork: no wait, no stop-the-world, no collector pause.
 *   - In a child, no C in this extension calls Go. Every call pyext's C makes
 *     into Go goes through a wrapper of the Go bridge (go_bridge.c, generated
 *     by tools/gobridge.py) that refuses it there, with the RuntimeError below
 *     (MV_FORKED_ERROR); callers that can say what needed Go ask first
 *     (mv_go_usable, mv_check_go in go.h). The functions gopy binds
 *     (memview._ext._pyext, every function and method of a package built
 *     --with) are wrapped in C that asks the same (gopy_gate.c), the generated
 *     call entries ask before their Go shim, and gopy's finalizers (DecRef) do
 *     nothing there: what the child inherited is reclaimed when it exits.
 *   - memview's own host work has C paths that a child takes (ops_host.c):
 *     creating arrays (the creation cache's free blocks, else mmap), views,
 *     copies, fills, imports of CPU producers, every export, pickles both ways,
 *     release. Memory made in the child is freed without Go (munmap); memory
 *     inherited from the parent stays mapped until the child exits.
 *   - What needs Go — bound packages, CUDA, memview.Buffer and Builder, pools and
 *     their statistics, dtypes the parent never resolved — raises the
 *     RuntimeError at once.
 *
 * "A forked child" is a process made by fork() (os.fork, multiprocessing's fork
 * and forkserver methods, which fork from the server process) after memview was
 * loaded: pthread_atfork is how the C library tells of one. A process cloned by
 * a raw system call that bypasses the C library is not told.
 */
#include <pthread.h>
#include "go.h"

int mv_in_child;

/* Set by the test build (selftest.c): runs in each child right after the flag. */
void (*mv_fork_child_hook)(void);

static void
on_child(void)
{
    mv_in_child = 1;
    if (mv_fork_child_hook != NULL)
        mv_fork_child_hook();
}

int
mv_install_fork_handlers(void)
{
    static int done;
    if (done)
        return 0;
    if (pthread_atfork(NULL, NULL, on_child) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "memview: pthread_atfork failed");
        return -1;
    }
    done = 1;
    return 0;
}

/* The RuntimeError of a forked child, naming what needed Go (memview.cuda's
 * CUDAError, a RuntimeError, for CUDA). */
PyObject *
mv_raise_forked(const char *what)
{
    return mv_raise_forked_as(PyExc_RuntimeError, what);
}

PyObject *
mv_raise_forked_cuda(const char *what)
{
    return mv_raise_forked_as(mv_cuda_error ? mv_cuda_error : PyExc_RuntimeError, what);
}

PyObject *
mv_raise_forked_as(PyObject *type, const char *what)
{
    PyErr_Format(type,
                 "memview: %s needs Go, and this process is a fork() child of one running memview's Go "
                 "runtime, which does not survive fork(). In a forked child memview's own host arrays "
                 "work (create, view, copy, fill, import, export, pickle); bound Go packages, CUDA, "
                 "Buffer, Builder and pools do not. Start workers with the 'spawn' or 'forkserver' "
                 "method instead (multiprocessing.get_context('spawn'); 'forkserver' is the default on "
                 "Linux from Python 3.14), and do not preload memview into a forkserver "
                 "(set_forkserver_preload): its workers are forked from a process running Go too",
                 what);
    return NULL;
}

int
mv_check_go(void)
{
    if (!mv_in_child)
        return 0;
    mv_raise_forked("this operation");
    return -1;
}
