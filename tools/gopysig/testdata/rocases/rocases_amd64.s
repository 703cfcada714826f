#include "textflag.h"

// func AsmRead(b []byte) uint64
TEXT ·AsmRead(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	/* a comment that names (SI) as a destination: MOVQ AX, (SI) */
	MOVQ (SI), AX
	MOVQ AX, ret+24(FP)
	RET

// func AsmStore(b []byte)
TEXT ·AsmStore(SB), NOSPLIT, $0-24
	MOVQ b_base+0(FP), DI
	LEAQ 8(DI), DX
	MOVQ $1, (DX)
	RET
