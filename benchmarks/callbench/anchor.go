package callbench

/*
#include <stdint.h>
int cb_install(void);
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/go-python/gopy/gopyh"
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

// acc is the *Acc gopy holds under handle h, or nil.
func acc(h C.int64_t) *Acc {
	a, _ := gopyh.VarFromHandle(gopyh.CGoHandle(h), "*callbench.Acc").(*Acc)
	return a
}

//export cbAccNop
func cbAccNop(h C.int64_t) C.int {
	a := acc(h)
	if a == nil {
		return -1
	}
	a.Nop()
	return 0
}

//export cbAccSum
func cbAccSum(h C.int64_t, p unsafe.Pointer, n C.int64_t, out *C.double) C.int {
	a := acc(h)
	if a == nil {
		return -1
	}
	*out = C.double(a.Sum(unsafe.Slice((*float64)(p), int(n))))
	return 0
}

// InstallAnchors makes the Python module callbench_anchors of the
// hand-written entries (anchor.c) and puts it in sys.modules.
func InstallAnchors() error {
	if C.cb_install() != 0 {
		return errors.New("callbench: the anchors module could not be made")
	}
	return nil
}
