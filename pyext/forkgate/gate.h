/*
 * gate.h — the fork gate (gate.c), for pyext's C and for the Go in this package.
 *
 * Work that runs Go without the GIL calls mv_gate_enter first and
 * mv_gate_leave before it takes the GIL again. mv_gate_close (the fork's
 * prepare handler) stops new work and waits, at most timeout_ms, for the work
 * in flight; it returns 1 when none is left. mv_gate_open lets work in again
 * (the parent, after the fork); mv_gate_reset starts afresh (the child).
 */
#ifndef MEMVIEW_FORKGATE_H
#define MEMVIEW_FORKGATE_H

void mv_gate_enter(void);
void mv_gate_leave(void);
int mv_gate_close(long timeout_ms);
void mv_gate_open(void);
void mv_gate_reset(void);

#endif
