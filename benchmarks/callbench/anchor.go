package callbench

/*
#include <stdint.h>
int cb_install(void);
*/
import "C"

import (
	"errors"
	"unsafe"
)

// The Go side of the floor: one export per benchmarked function, called once
// by its hand-written C entry (anchor.c).

//export cbNop
func cbNop() { Nop() }

//export cbAdd
func cbAdd(a, b C.int64_t) C.int64_t { return C.int64_t(Add(int(a), int(b))) }

//export cbSum
func cbSum(p unsafe.Pointer, n C.int64_t) C.double {
	return C.double(sum(unsafe.Slice((*float64)(p), int(n))))
}

//export cbScale
func cbScale(p unsafe.Pointer, n, stride C.int64_t, f C.double) {
	scale(p, int(n), int(stride), float64(f))
}

// InstallAnchors makes the Python module callbench_anchors of the
// hand-written entries (anchor.c) and puts it in sys.modules.
func InstallAnchors() error {
	if C.cb_install() != 0 {
		return errors.New("callbench: the anchors module could not be made")
	}
	return nil
}
