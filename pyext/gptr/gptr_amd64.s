#include "textflag.h"

// func Current() unsafe.Pointer: the running goroutine's runtime g, from thread-local
// storage (the runtime's own get_tls/g macros, go_tls.h).
TEXT ·Current(SB), NOSPLIT, $0-8
	MOVQ TLS, CX
	MOVQ 0(CX)(TLS*1), AX
	MOVQ AX, ret+0(FP)
	RET

// func Sched() unsafe.Pointer: the address of the runtime's scheduler state (runtime.sched).
TEXT ·Sched(SB), NOSPLIT, $0-8
	MOVQ $runtime·sched(SB), AX
	MOVQ AX, ret+0(FP)
	RET
