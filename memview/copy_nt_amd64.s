//go:build amd64 && !race && !purego

#include "textflag.h"

// func ntCopy(dst, src unsafe.Pointer, blocks uintptr)
//
// Copies blocks*16384 bytes from src to dst (16-byte aligned; the two must not
// overlap) with non-temporal stores, which write whole lines to memory
// without reading them first. Each 16 KiB block is walked as four 4 KiB
// quarters in step, 64 bytes of each at a time, as glibc's large memcpy
// does: four streams keep more of the memory system busy than one.
TEXT ·ntCopy(SB), NOSPLIT, $0-24
	MOVQ	dst+0(FP), DI
	MOVQ	src+8(FP), SI
	MOVQ	blocks+16(FP), CX
	TESTQ	CX, CX
	JZ	done
block:
	MOVQ	$64, DX
line:
	MOVOU	0(SI), X0
	MOVOU	16(SI), X1
	MOVOU	32(SI), X2
	MOVOU	48(SI), X3
	MOVNTO	X0, 0(DI)
	MOVNTO	X1, 16(DI)
	MOVNTO	X2, 32(DI)
	MOVNTO	X3, 48(DI)
	MOVOU	4096(SI), X4
	MOVOU	4112(SI), X5
	MOVOU	4128(SI), X6
	MOVOU	4144(SI), X7
	MOVNTO	X4, 4096(DI)
	MOVNTO	X5, 4112(DI)
	MOVNTO	X6, 4128(DI)
	MOVNTO	X7, 4144(DI)
	MOVOU	8192(SI), X0
	MOVOU	8208(SI), X1
	MOVOU	8224(SI), X2
	MOVOU	8240(SI), X3
	MOVNTO	X0, 8192(DI)
	MOVNTO	X1, 8208(DI)
	MOVNTO	X2, 8224(DI)
	MOVNTO	X3, 8240(DI)
	MOVOU	12288(SI), X4
	MOVOU	12304(SI), X5
	MOVOU	12320(SI), X6
	MOVOU	12336(SI), X7
	MOVNTO	X4, 12288(DI)
	MOVNTO	X5, 12304(DI)
	MOVNTO	X6, 12320(DI)
	MOVNTO	X7, 12336(DI)
	ADDQ	$64, SI
	ADDQ	$64, DI
	DECQ	DX
	JNZ	line
	ADDQ	$12288, SI
	ADDQ	$12288, DI
	DECQ	CX
	JNZ	block
done:
	SFENCE
	RET
