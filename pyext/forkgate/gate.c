/*
 * gate.c — the fork gate itself, in C: threads that wait at it wait outside Go.
 *
 * A thread that waited inside Go (a sleeping goroutine, a futex under the Go
 * scheduler) would keep taking and giving back one of the runtime's Ps; at
 * the fork, the child could find every P held by a thread it does not have,
 * and hang the first time it entered Go. Waiting on a condition variable in
 * C holds no P.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "gate.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long inflight; /* work past the gate */
static int closed;    /* a fork is being prepared */

void
mv_gate_enter(void)
{
    pthread_mutex_lock(&mu);
    while (closed)
        pthread_cond_wait(&changed, &mu);
    inflight++;
    pthread_mutex_unlock(&mu);
}

void
mv_gate_leave(void)
{
    pthread_mutex_lock(&mu);
    if (--inflight == 0 && closed)
        pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mu);
}

int
mv_gate_close(long timeout_ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&mu);
    closed = 1;
    while (inflight > 0)
        if (pthread_cond_timedwait(&changed, &mu, &deadline) == ETIMEDOUT)
            break;
    int idle = inflight == 0;
    pthread_mutex_unlock(&mu);
    return idle;
}

void
mv_gate_open(void)
{
    pthread_mutex_lock(&mu);
    closed = 0;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mu);
}

void
mv_gate_reset(void)
{
    /* In a forked child: another thread may have held the mutex at the fork,
     * and the work in flight is gone with its threads. */
    pthread_mutex_init(&mu, NULL);
    pthread_cond_init(&changed, NULL);
    inflight = 0;
    closed = 0;
}
