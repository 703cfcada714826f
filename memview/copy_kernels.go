package memview

import (
	"runtime"
	"sync"
	"unsafe"
)

// The inner loops of copies and fills. Each kernel moves whole items through
// typed loads and stores of the item's size (1, 2, 4, 8 or 16 bytes), so the
// compiler emits one load and one store per item; runs contiguous in both
// operands go to the runtime's memmove. Offsets are int arithmetic; a
// pointer is formed only for an item that exists (see iter.go).

// unalignedOK reports whether typed loads and stores may be unaligned on this
// architecture. Elsewhere, kernels for unaligned operands copy bytes.
const unalignedOK = runtime.GOARCH == "amd64" || runtime.GOARCH == "386" ||
	runtime.GOARCH == "arm64" || runtime.GOARCH == "ppc64le" || runtime.GOARCH == "ppc64" ||
	runtime.GOARCH == "s390x" || runtime.GOARCH == "wasm"

// word is the set of types kernels move items as.
type word interface {
	uint8 | uint16 | uint32 | uint64 | [2]uint64
}

// kernels are the loops for one item size.
type kernels struct {
	// run copies n items: item i from s+i*ss to d+i*ds. ss may be 0 (a fill).
	run func(d, s unsafe.Pointer, n, ds, ss int)
	// tile copies the 2-D block a×b, where a is the src-fast axis and b the
	// dst-fast one, so that both operands are read and written in runs of
	// whole cache lines.
	tile func(d, s unsafe.Pointer, a, b axis)
}

var (
	kernels1  = kernels{runOf[uint8], tileOf[uint8]}
	kernels2  = kernels{runOf[uint16], tileOf[uint16]}
	kernels4  = kernels{runOf[uint32], tileOf[uint32]}
	kernels8  = kernels{runOf[uint64], tileOf[uint64]}
	kernels16 = kernels{runOf[[2]uint64], tileOf[[2]uint64]}
)

// kernelsFor returns the kernels for itemsize-byte items at d and s with the
// given strides.
func kernelsFor(itemsize int, d, s unsafe.Pointer, axes []axis) kernels {
	if !unalignedOK {
		align := uintptr(min(itemsize, 8))
		bits := uintptr(d) | uintptr(s)
		for _, a := range axes {
			bits |= uintptr(a.d) | uintptr(a.s)
		}
		if bits&(align-1) != 0 {
			return bytesKernels(itemsize)
		}
	}
	switch itemsize {
	case 1:
		return kernels1
	case 2:
		return kernels2
	case 4:
		return kernels4
	case 8:
		return kernels8
	case 16:
		return kernels16
	}
	return bytesKernels(itemsize)
}

// bytesKernels copies items of any size with copy, item by item.
func bytesKernels(itemsize int) kernels {
	run := func(d, s unsafe.Pointer, n, ds, ss int) {
		if ds == itemsize && ss == itemsize {
			copyLarge(d, s, n*itemsize)
			return
		}
		do, so := 0, 0
		for range n {
			copy(unsafe.Slice((*byte)(unsafe.Add(d, do)), itemsize), unsafe.Slice((*byte)(unsafe.Add(s, so)), itemsize))
			do += ds
			so += ss
		}
	}
	tile := func(d, s unsafe.Pointer, a, b axis) {
		for i := range a.n {
			run(unsafe.Add(d, i*a.d), unsafe.Add(s, i*a.s), b.n, b.d, b.s)
		}
	}
	return kernels{run, tile}
}

// memmove copies n bytes from s to d (the regions may overlap).
func memmove(d, s unsafe.Pointer, n int) {
	copy(unsafe.Slice((*byte)(d), n), unsafe.Slice((*byte)(s), n))
}

// ntMinBytes is the size from which copyLarge may write with non-temporal
// stores: copies this large are unlikely to be read again from the cache.
const ntMinBytes = 1 << 20

// runOf copies n items of type T: item i from s+i*ss to d+i*ds.
func runOf[T word](d, s unsafe.Pointer, n, ds, ss int) {
	size := int(unsafe.Sizeof(*(*T)(nil)))
	switch {
	case ds == size && ss == size:
		copyLarge(d, s, n*size)
	case ss == 0:
		fillOf(d, *(*T)(s), n, ds)
	case ds == size:
		dd := unsafe.Slice((*T)(d), n)
		so := 0
		for i := range dd {
			dd[i] = *(*T)(unsafe.Add(s, so))
			so += ss
		}
	default:
		do, so := 0, 0
		for range n {
			*(*T)(unsafe.Add(d, do)) = *(*T)(unsafe.Add(s, so))
			do += ds
			so += ss
		}
	}
}

// fillChunk is the size of the block a long contiguous fill writes with
// stores before copying it forward with copyLarge, whose non-temporal stores
// (from ntMinBytes up) do not read the destination first. (A variable so
// that tests can take this path with small arrays.)
var fillChunk = 1 << 20

// fillOf stores v into n items at d, ds bytes apart.
func fillOf[T word](d unsafe.Pointer, v T, n, ds int) {
	size := int(unsafe.Sizeof(v))
	if ds != size {
		do := 0
		for range n {
			*(*T)(unsafe.Add(d, do)) = v
			do += ds
		}
		return
	}
	first := n
	if n*size >= 2*fillChunk {
		first = fillChunk / size
	}
	dd := unsafe.Slice((*T)(d), n)
	for i := range dd[:first] {
		dd[i] = v
	}
	// Copy the filled block forward; it stays in cache.
	block, total := first*size, n*size
	for off := block; off < total; off += block {
		copyLarge(unsafe.Add(d, off), d, min(block, total-off))
	}
}

// A tiled copy goes through a staging block of tileRows×tileRowBytes bytes:
// tileRows runs of the src-fast axis are read into it, each a few whole
// cache lines of src read in order, then the dst-fast runs are written from
// it. The block stays in the L2 cache, and its row pitch is padded so that
// its columns do not all fall into one cache set, which the power-of-two
// strides of the operands themselves would do.
const (
	tileRowBytes = 1024
	tileRows     = 256
)

// tileBufs holds staging blocks for tiled copies.
var tileBufs = sync.Pool{New: func() any {
	b := make([]byte, tileRows*(tileRowBytes+16))
	return &b
}}

// tileOf copies the 2-D block a×b of items of type T (a is the src-fast
// axis, b the dst-fast one, the run) through a staging block.
func tileOf[T word](d, s unsafe.Pointer, a, b axis) {
	size := int(unsafe.Sizeof(*(*T)(nil)))
	ta, tb := max(tileRowBytes/size, 1), tileRows // items along a, b
	pitch := ta*size + size                       // bytes between staged runs
	bp := tileBufs.Get().(*[]byte)
	defer tileBufs.Put(bp)
	buf := unsafe.Pointer(unsafe.SliceData(*bp))
	for i0 := 0; i0 < a.n; i0 += ta {
		na := min(ta, a.n-i0)
		for j0 := 0; j0 < b.n; j0 += tb {
			nb := min(tb, b.n-j0)
			// Staged run j holds src items (i0..i0+na, j0+j).
			for j := range nb {
				runOf[T](unsafe.Add(buf, j*pitch), unsafe.Add(s, i0*a.s+(j0+j)*b.s), na, size, a.s)
			}
			// dst run i is column i of the staged runs.
			for i := range na {
				runOf[T](unsafe.Add(d, (i0+i)*a.d+j0*b.d), unsafe.Add(buf, i*size), nb, b.d, pitch)
			}
		}
	}
}
