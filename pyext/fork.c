/*
 * fork.c — memview across fork(): the pthread_atfork handlers (see fork.go for
 * what each side does and why) and the flag that makes a child refuse Go work
 * when the fork could not be made safe.
 */
#include <pthread.h>
#include <stdlib.h>
#include "capi.h"
#include "_cgo_export.h"

static long fork_wait_ms = 2000; /* MEMVIEW_FORK_WAIT_MS */
static int fork_ready;           /* prepare's verdict, read by the child handler */
static int go_unusable;          /* in a child forked while Go work could not be stopped */

static void
on_prepare(void)
{
    fork_ready = mv_gate_close(fork_wait_ms);
    mvgo_fork_prepare(); /* last: this thread leaves Go just before the fork */
}

static void
on_parent(void)
{
    mvgo_fork_parent();
    mv_gate_open();
}

/* Nothing here enters Go: a child that only execs (subprocess) never does. */
static void
on_child(void)
{
    mv_gate_reset();
    if (!fork_ready)
        go_unusable = 1; /* never enter Go again in this process */
}

int
mv_install_fork_handlers(void)
{
    static int done;
    if (done)
        return 0;
    const char *ms = getenv("MEMVIEW_FORK_WAIT_MS");
    if (ms != NULL && *ms != 0) {
        char *end;
        long v = strtol(ms, &end, 10);
        if (*end == 0 && v >= 0)
            fork_wait_ms = v;
    }
    if (pthread_atfork(on_prepare, on_parent, on_child) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "memview: pthread_atfork failed");
        return -1;
    }
    done = 1;
    return 0;
}

int
mv_go_usable(void)
{
    return !go_unusable;
}

int
mv_check_go(void)
{
    if (!go_unusable)
        return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "memview: this process was forked while Go code was still running in another "
                    "thread of its parent, so memview's Go runtime cannot be used here; arrays "
                    "inherited from the parent can still be read and written through the buffer "
                    "protocol. Start worker processes with the 'spawn' or 'forkserver' method "
                    "(multiprocessing.get_context('spawn')) to use memview in them fully");
    return -1;
}
