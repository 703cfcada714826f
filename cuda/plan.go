package cuda

import (
	"slices"
)

// Copies between host memory and strided device memory can be planned in Go
// as a list of 2-D copies (cuMemcpy2D: height rows of width bytes, each side
// with its own pitch), which the driver's copy engines run. memview uses them
// only where they are known to work and to be fast: to and from host memory
// (the driver documents that device-to-device 2-D copies may fail for pitches
// not made by cuMemAllocPitch), with a few long rows; every other strided
// device copy is a kernel (kernel.go). The planner is pure Go and is tested on
// the CPU by running its plans with memmove.

// copy2D is one 2-D copy between unified virtual addresses.
type copy2D struct {
	dst, src           uintptr
	dstPitch, srcPitch int
	width, height      int
}

// maxPitch is the largest pitch the driver accepts in a 2-D copy
// (CU_DEVICE_ATTRIBUTE_MAX_PITCH is 2^31-1 on current GPUs); rows further apart
// are copied one by one.
const maxPitch = 1<<31 - 1

// operand is one side of a copy: the address of element 0 and byte strides.
type operand struct {
	addr    uintptr
	strides []int
}

// plan2D plans the copy of src into dst, both of the given shape and item
// size. It fails (ok false) when no plan of forward 2-D copies exists: when,
// after reversing the axes along which dst runs backwards (in both operands),
// src still runs backwards or stands still (stride <= 0) along an axis, or dst
// stands still. Axes are ordered by dst's strides so that dst is written in
// address order, and axes contiguous in both operands are merged.
func plan2D(dst, src operand, shape []int, itemsize int) (ops []copy2D, ok bool) {
	type axis struct{ n, ds, ss int }
	var axes []axis
	d, s := dst.addr, src.addr
	if slices.Contains(shape, 0) {
		return nil, true
	}
	for k, n := range shape {
		if n == 1 {
			continue
		}
		ds, ss := dst.strides[k], src.strides[k]
		if ds < 0 { // walk this axis from its other end in both operands
			d -= uintptr(-ds * (n - 1))
			s += uintptr(ss * (n - 1)) // wraps correctly for ss < 0
			ds, ss = -ds, -ss
		}
		if ds == 0 || ss <= 0 {
			return nil, false
		}
		axes = append(axes, axis{n, ds, ss})
	}
	// Outermost first: decreasing dst stride (stable, so ties keep their order).
	slices.SortStableFunc(axes, func(a, b axis) int { return b.ds - a.ds })
	merged := axes[:0]
	for _, a := range axes {
		if m := len(merged); m > 0 {
			in := &merged[m-1]
			// a is inner to in; they merge when in steps exactly over all of a.
			if in.ds == a.ds*a.n && in.ss == a.ss*a.n {
				*in = axis{in.n * a.n, a.ds, a.ss}
				continue
			}
		}
		merged = append(merged, a)
	}
	axes = merged
	if len(axes) == 0 { // one element
		return []copy2D{{dst: d, src: s, dstPitch: itemsize, srcPitch: itemsize, width: itemsize, height: 1}}, true
	}
	// The rows: a contiguous innermost axis gives rows of n items, with the next
	// axis out as the row axis; otherwise each row is one item.
	inner := axes[len(axes)-1]
	width, outer := itemsize, axes
	row := inner
	if inner.ds == itemsize && inner.ss == itemsize {
		width = inner.n * itemsize
		outer = axes[:len(axes)-1]
		if len(outer) == 0 {
			return []copy2D{{dst: d, src: s, dstPitch: width, srcPitch: width, width: width, height: 1}}, true
		}
		row = outer[len(outer)-1]
		if row.ds < width || row.ss < width { // rows would overlap: one item per row instead
			width, outer, row = itemsize, axes, inner
		}
	}
	outer = outer[:len(outer)-1] // the row axis is the height of each 2-D copy
	count := 1
	for _, a := range outer {
		count *= a.n
	}
	perRow := row.ds > maxPitch || row.ss > maxPitch
	idx := make([]int, len(outer))
	for range count {
		od, os := d, s
		for k, i := range idx {
			od += uintptr(i * outer[k].ds)
			os += uintptr(i * outer[k].ss)
		}
		if perRow {
			for r := range row.n {
				ops = append(ops, copy2D{dst: od + uintptr(r*row.ds), src: os + uintptr(r*row.ss),
					dstPitch: width, srcPitch: width, width: width, height: 1})
			}
		} else {
			ops = append(ops, copy2D{dst: od, src: os, dstPitch: row.ds, srcPitch: row.ss, width: width, height: row.n})
		}
		for k := len(idx) - 1; k >= 0; k-- { // odometer, innermost fastest
			if idx[k]++; idx[k] < outer[k].n {
				break
			}
			idx[k] = 0
		}
	}
	return ops, true
}

// denseLike returns strides for a dense (gap-free) array of shape that visits
// memory in the same axis order and directions as strides does: axes ordered
// by decreasing |stride| (stable), each with the sign of its stride. It also
// returns the offset of element 0 from the lowest address and the byte size.
// Copying between an array and a dense array made like it never needs to
// reverse an axis, so plan2D always succeeds for the pair.
func denseLike(shape, strides []int, itemsize int) (dense []int, offset, size int) {
	order := make([]int, len(shape))
	for k := range order {
		order[k] = k
	}
	abs := func(v int) int { return max(v, -v) }
	slices.SortStableFunc(order, func(a, b int) int { return abs(strides[b]) - abs(strides[a]) })
	dense = make([]int, len(shape))
	size = itemsize
	for k := len(order) - 1; k >= 0; k-- {
		ax := order[k]
		dense[ax] = size
		size *= shape[ax]
	}
	for ax, n := range shape {
		if strides[ax] < 0 {
			dense[ax] = -dense[ax]
			offset += (n - 1) * -dense[ax]
		}
	}
	if size == 0 {
		offset = 0
	}
	return dense, offset, size
}

// isDense reports whether strides are their own denseLike (the array covers
// its span with no gaps and no repeats).
func isDense(shape, strides []int, itemsize int) bool {
	d, _, _ := denseLike(shape, strides, itemsize)
	for k, n := range shape {
		if n > 1 && d[k] != strides[k] {
			return false
		}
	}
	return true
}
