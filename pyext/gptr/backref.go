package gptr

import "unsafe"

// FindBackRef looks through the size bytes at seg (8-byte words, seg aligned)
// for the one word that holds its own address less back, and returns that
// address (the structure the word points back to), or nil unless exactly one
// such word lies in seg with the structure inside seg too.
//
// The runtime's heap is found this way: its page allocator holds a pointer to
// the heap's lock (mheap.pages.mheapLock = &mheap.lock), and no other word of
// the runtime's data points back that distance to itself. The runtime does not
// let its heap be referenced by name from outside (see pyext/fork.go).
func FindBackRef(seg unsafe.Pointer, size, back uintptr) unsafe.Pointer {
	const word = unsafe.Sizeof(uintptr(0))
	if seg == nil || back == 0 || back%word != 0 || back >= size || uintptr(seg)%word != 0 {
		return nil
	}
	lo := uintptr(seg)
	var found unsafe.Pointer
	for off := back; off+word <= size; off += word {
		p := unsafe.Add(seg, off)
		if *(*uintptr)(p) == lo+off-back {
			if found != nil {
				return nil // two: not the one asked for
			}
			found = unsafe.Add(seg, off-back)
		}
	}
	return found
}
