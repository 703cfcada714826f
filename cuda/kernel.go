package cuda

import (
	"encoding/binary"
	"slices"
)

// Launches of memview's kernels (kernels.ptx) are planned here, in pure Go:
// which kernel, the launch geometry and the packed argument block. The layout
// of the block is mv_kernel_args in cuda_abi.h; the PTX reads it at these
// offsets, and a test compares them with the C struct.
const (
	argDst      = 0
	argSrc      = 8
	argN0       = 16
	argDs0      = 24
	argSs0      = 32
	argRows     = 40
	argNOuter   = 48
	argItemsize = 52
	argValue    = 56
	argOuter    = 120
	axisSize    = 24
	maxOuter    = 63 // MV_KERNEL_MAXOUTER
	maxValue    = 64 // MV_KERNEL_MAXVALUE
	argsSize    = argOuter + axisSize*maxOuter

	blockThreads = 256   // threads per block, in x times y
	maxGridDim   = 65535 // the largest grid extent in y on every GPU (x allows more)
)

// launch is one launch of a kernel of memview's module.
type launch struct {
	k     kernel
	grid  [3]uint32
	block [3]uint32
	args  [argsSize]byte
}

// walkAxis is one axis of a kernel's walk: length and byte strides.
type walkAxis struct {
	n      int
	ds, ss int
}

// planCopyKernel plans dst[i] = src[i] over shape (both operands with byte
// strides; src may broadcast with stride 0, axes may run backwards) as one
// launch. Bytes move in units of the widest of 16, 8, 4, 2, 1 bytes that
// divides the contiguous inner run (an item, or whole rows of items where the
// elements are contiguous in both operands), both addresses and every other
// stride. It returns ok false only for walks the argument block cannot
// describe (more than 63 outer axes after merging); an empty shape gives ok
// with no launch (n 0).
func planCopyKernel(dst, src operand, shape []int, itemsize int) (l launch, n int, ok bool) {
	if slices.Contains(shape, 0) {
		return l, 0, true
	}
	// The walk over bytes: the element axes and the bytes of an item, ordered
	// and merged. When elements are contiguous in both operands the bytes of
	// whole rows merge into the inner axis, so the unit can be wider than an
	// item (16-byte moves for rows of float32).
	axes := make([]walkAxis, 0, len(shape)+1)
	for k, n := range shape {
		if n > 1 {
			axes = append(axes, walkAxis{n, dst.strides[k], src.strides[k]})
		}
	}
	if itemsize > 1 {
		axes = append(axes, walkAxis{itemsize, 1, 1})
	}
	axes = orderAxes(axes)
	inner := walkAxis{n: 1, ds: 1, ss: 1}
	if len(axes) > 0 && axes[len(axes)-1].ds == 1 && axes[len(axes)-1].ss == 1 {
		inner, axes = axes[len(axes)-1], axes[:len(axes)-1]
	}
	unit := 16
	for ; unit > 1; unit /= 2 {
		u := uintptr(unit)
		if inner.n%unit == 0 && dst.addr%u == 0 && src.addr%u == 0 && stridesFitAxes(axes, unit) {
			break
		}
	}
	if inner.n > unit {
		axes = append(axes, walkAxis{inner.n / unit, unit, unit})
	}
	l, ok = packWalk(unitKernel(false, unit), dst.addr, src.addr, axes)
	return l, 1, ok
}

// stridesFitAxes reports whether every stride of axes is a multiple of unit.
func stridesFitAxes(axes []walkAxis, unit int) bool {
	for _, a := range axes {
		if a.ds%unit != 0 || a.ss%unit != 0 {
			return false
		}
	}
	return true
}

// planFillKernel plans dst[i] = item over shape as one launch: a kernel that
// stores the whole item as one unit when its size is 1, 2, 4, 8 or 16 and
// divides the address and every stride, else one that stores it byte by byte.
// ok is false for items wider than 64 bytes (the argument block carries the
// item) or walks it cannot describe.
func planFillKernel(dst operand, shape []int, item []byte) (l launch, n int, ok bool) {
	itemsize := len(item)
	if slices.Contains(shape, 0) {
		return l, 0, true
	}
	if itemsize > maxValue {
		return l, 0, false
	}
	zero := make([]int, len(shape))
	k := kFillBytes
	switch itemsize {
	case 1, 2, 4, 8, 16:
		if dst.addr%uintptr(itemsize) == 0 && stridesFit(shape, dst.strides, zero, itemsize) {
			k = unitKernel(true, itemsize)
		}
	}
	axes := make([]walkAxis, 0, len(shape))
	for d, n := range shape {
		if n > 1 {
			axes = append(axes, walkAxis{n, dst.strides[d], 0})
		}
	}
	l, ok = packWalk(k, dst.addr, 0, axes)
	binary.LittleEndian.PutUint32(l.args[argItemsize:], uint32(itemsize))
	copy(l.args[argValue:], item)
	return l, 1, ok
}

// stridesFit reports whether every stride of an axis longer than 1 is a
// multiple of unit in both operands.
func stridesFit(shape, ds, ss []int, unit int) bool {
	for k, n := range shape {
		if n > 1 && (ds[k]%unit != 0 || ss[k]%unit != 0) {
			return false
		}
	}
	return true
}

// packWalk orders the axes so that the destination is written in address
// order (decreasing |destination stride|, the smallest innermost, so that
// neighbouring threads store to neighbouring addresses), merges axes that are
// contiguous in both operands, and packs the argument block and a geometry.
func packWalk(k kernel, dst, src uintptr, axes []walkAxis) (l launch, ok bool) {
	axes = orderAxes(axes)
	inner := walkAxis{n: 1}
	if len(axes) > 0 {
		inner = axes[len(axes)-1]
		axes = axes[:len(axes)-1]
	}
	if len(axes) > maxOuter {
		return l, false
	}
	le := binary.LittleEndian
	le.PutUint64(l.args[argDst:], uint64(dst))
	le.PutUint64(l.args[argSrc:], uint64(src))
	le.PutUint64(l.args[argN0:], uint64(inner.n))
	le.PutUint64(l.args[argDs0:], uint64(inner.ds))
	le.PutUint64(l.args[argSs0:], uint64(inner.ss))
	rows := 1
	for j := range axes { // innermost outer axis first
		a := axes[len(axes)-1-j]
		off := argOuter + j*axisSize
		le.PutUint64(l.args[off:], uint64(a.n))
		le.PutUint64(l.args[off+8:], uint64(a.ds))
		le.PutUint64(l.args[off+16:], uint64(a.ss))
		rows *= a.n
	}
	le.PutUint64(l.args[argRows:], uint64(rows))
	le.PutUint32(l.args[argNOuter:], uint32(len(axes)))
	l.k = k
	l.block, l.grid = geometry(inner.n, rows)
	return l, true
}

// orderAxes sorts axes so that the destination is written in address order
// (decreasing |destination stride|, stable) and merges neighbours that are
// contiguous in both operands.
func orderAxes(axes []walkAxis) []walkAxis {
	abs := func(v int) int { return max(v, -v) }
	slices.SortStableFunc(axes, func(a, b walkAxis) int { return abs(b.ds) - abs(a.ds) })
	merged := axes[:0]
	for _, a := range axes {
		if m := len(merged); m > 0 {
			in := &merged[m-1]
			if in.ds == a.ds*a.n && in.ss == a.ss*a.n {
				*in = walkAxis{in.n * a.n, a.ds, a.ss}
				continue
			}
		}
		merged = append(merged, a)
	}
	return merged
}

// geometry picks blocks of 256 threads, as wide in x as the inner axis needs
// (a power of two), the rest in y, and a grid that covers the walk once,
// clamped to what every GPU accepts (the kernels loop over whatever is left).
func geometry(n0, rows int) (block, grid [3]uint32) {
	bx := 1
	for bx < n0 && bx < blockThreads {
		bx *= 2
	}
	by := blockThreads / bx
	gx := min((n0+bx-1)/bx, maxGridDim)
	gy := min((rows+by-1)/by, maxGridDim)
	return [3]uint32{uint32(bx), uint32(by), 1}, [3]uint32{uint32(gx), uint32(gy), 1}
}
