package gopkg

import "unsafe"

func unsafeAddr(p *float64) unsafe.Pointer { return unsafe.Pointer(p) }
