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

// func AsmReuse(b []byte, state *uint64)
// SI holds b's address, then data; the store goes through state's.
TEXT ·AsmReuse(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ state+24(FP), DI
	MOVQ (SI), AX
	MOVQ (DI), SI
	ADDQ AX, SI
	ADDQ SI, DI
	MOVQ state+24(FP), DI
	MOVQ SI, (DI)
	RET

// func AsmLoopStore(b []byte)
// The store comes first in the text, and reaches b's address on the loop's second turn.
TEXT ·AsmLoopStore(SB), NOSPLIT, $0-24
	XORQ DX, DX
	LEAQ scratch<>(SB), DX
	MOVQ $2, CX
loop:
	MOVQ $1, (DX)
	MOVQ b_base+0(FP), DX
	DECQ CX
	JNZ loop
	RET

// func AsmSpill(b []byte)
// b's address goes to the stack and comes back.
TEXT ·AsmSpill(SB), NOSPLIT, $16-24
	MOVQ b_base+0(FP), SI
	MOVQ SI, 8(SP)
	MOVQ 8(SP), DI
	MOVQ $1, (DI)
	RET

// func AsmCall(b []byte)
TEXT ·AsmCall(SB), NOSPLIT, $0-24
	CALL ·helper(SB)
	RET

TEXT ·helper(SB), NOSPLIT, $0-0
	RET

GLOBL scratch<>(SB), NOPTR, $8

// func AsmMemmoveFrom(b []byte, out *uint64)
// b's address spilled beside out's; memmove reads b and writes out.
TEXT ·AsmMemmoveFrom(SB), $48-32
	MOVQ b_base+0(FP), SI
	MOVQ out+24(FP), DI
	MOVQ SI, 40(SP)
	MOVQ DI, 32(SP)
	MOVQ DI, 0(SP)
	MOVQ SI, 8(SP)
	MOVQ $8, 16(SP)
	CALL runtime·memmove(SB)
	MOVQ 32(SP), DI
	MOVQ $1, (DI)
	RET

// func AsmMemmoveTo(b []byte, in *uint64)
TEXT ·AsmMemmoveTo(SB), $24-32
	MOVQ b_base+0(FP), DI
	MOVQ in+24(FP), SI
	MOVQ DI, (SP)
	MOVQ SI, 8(SP)
	MOVQ $8, 16(SP)
	CALL runtime·memmove(SB)
	RET
