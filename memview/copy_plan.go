package memview

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// A copyPlan is a prepared strided copy: a loop (see newLoop), the kernels
// for its item size, and whether its last two axes are copied as tiles.
type copyPlan struct {
	loop
	k     kernels
	tiled bool // axes[len-2] is the src-fast axis, copied in tiles with the run
}

// tileMinStride is the src stride (bytes) of the run above which each item
// read is a cache line of its own; if another axis is src-fast, the copy is
// then done in tiles of the two.
const tileMinStride = 64

// Copies that move at least parallelMinBytes are split over up to
// parallelism() goroutines (GOMAXPROCS unless SetParallelism says less), each with at least parallelChunk bytes. (Variables
// so that tests can exercise the split on small arrays.)
var (
	parallelMinBytes = 4 << 20
	parallelChunk    = 2 << 20
)

// parallelSplits counts the copies split over goroutines (for tests).
var parallelSplits atomic.Int64

// copyStrided copies the items of a strided src to a strided dst of the same
// shape; src strides may be 0 (broadcasting, or a fill from one item). dst
// and src must not overlap (assign handles views that do). A dst that
// overlaps itself gets one of the values written to it (such a copy is not
// split over goroutines).
func copyStrided(dst unsafe.Pointer, dstStrides []int, src unsafe.Pointer, srcStrides []int, shape []int, itemsize int) {
	l, ok := newLoop(shape, dstStrides, srcStrides)
	if !ok {
		return
	}
	p := copyPlan{loop: l, k: kernelsFor(itemsize, dst, src, l.axes)}
	p.planTiles()
	size := 1
	for _, a := range p.axes {
		size *= a.n
	}
	if nbytes := size * itemsize; nbytes >= parallelMinBytes {
		workers := min(parallelism(), nbytes/parallelChunk)
		if workers >= 2 && selfOverlapFree(p.axes, itemsize) {
			p.parallel(dst, src, workers, itemsize)
			return
		}
	}
	p.exec(dst, src)
}

// planTiles moves the src-fast axis next to the run and sets tiled when the
// run reads src with a stride of more than a cache line and another axis
// reads it with less (a transpose).
func (p *copyPlan) planTiles() {
	nd := len(p.axes)
	in := p.axes[nd-1]
	if nd < 2 || absU(in.s) <= tileMinStride {
		return
	}
	q := -1
	for k, a := range p.axes[:nd-1] {
		if absU(a.s) < absU(in.s) && (q < 0 || absU(a.s) < absU(p.axes[q].s)) {
			q = k
		}
	}
	if q < 0 || absU(p.axes[q].s) > tileMinStride {
		return
	}
	a := p.axes[q]
	copy(p.axes[q:nd-2], p.axes[q+1:nd-1])
	p.axes[nd-2] = a
	p.tiled = true
}

// exec runs the plan from the element 0 pointers dst and src.
func (p *copyPlan) exec(dst, src unsafe.Pointer) {
	nd := len(p.axes)
	if p.tiled {
		a, b := p.axes[nd-2], p.axes[nd-1]
		forEachOffset(p.axes[:nd-2], p.dOff, p.sOff, func(dOff, sOff int) {
			p.k.tile(unsafe.Add(dst, dOff), unsafe.Add(src, sOff), a, b)
		})
		return
	}
	in := p.axes[nd-1]
	forEachOffset(p.axes[:nd-1], p.dOff, p.sOff, func(dOff, sOff int) {
		p.k.run(unsafe.Add(dst, dOff), unsafe.Add(src, sOff), in.n, in.d, in.s)
	})
}

// parallel splits the longest axis (the outermost of equals) into workers
// parts and runs them at once, the first on this goroutine. A panic in a
// worker is re-raised here.
func (p *copyPlan) parallel(dst, src unsafe.Pointer, workers, itemsize int) {
	parallelSplits.Add(1)
	j := 0
	for k, a := range p.axes {
		if a.n > p.axes[j].n {
			j = k
		}
	}
	n := p.axes[j].n
	workers = min(workers, n)
	// Cut the run whole pages of items apart, so that workers writing a
	// contiguous dst do not share its cache lines.
	grain := 1
	if j == len(p.axes)-1 && n >= workers*4096 {
		grain = max(1, 4096/itemsize)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		panicked any
	)
	part := func(w int) copyPlan {
		lo, hi := n*w/workers/grain*grain, n*(w+1)/workers/grain*grain
		if w == workers-1 {
			hi = n
		}
		q := *p
		q.axes = append([]axis(nil), p.axes...)
		q.axes[j].n = hi - lo
		q.dOff += lo * p.axes[j].d
		q.sOff += lo * p.axes[j].s
		return q
	}
	for w := 1; w < workers; w++ {
		q := part(w)
		if q.axes[j].n == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					panicked = r
					mu.Unlock()
				}
			}()
			q.exec(dst, src)
		}()
	}
	func() {
		defer wg.Wait() // even if part 0 panics: no worker may outlive the call
		if q := part(0); q.axes[j].n > 0 {
			q.exec(dst, src)
		}
	}()
	if panicked != nil {
		panic(panicked)
	}
}
