package cuda

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// A random strided operand inside a fresh byte buffer: shape, signed strides
// that are multiples of the item size (or 0, a broadcast, when allowed), any
// axis order, and the address of element 0 placed so the span fits. Some
// operands sit at an odd offset, so that narrower units are exercised.
type testOperand struct {
	buf  []byte
	base int // offset of element 0 in buf
	op   operand
}

func randomOperand(r *rand.Rand, shape []int, itemsize int, broadcast bool) testOperand {
	nd := len(shape)
	strides := make([]int, nd)
	order := r.Perm(nd)
	step := itemsize
	for _, k := range order {
		gap := 1 + r.IntN(3)*r.IntN(2)
		strides[k] = step * gap
		step *= shape[k] * gap
		if r.IntN(3) == 0 {
			strides[k] = -strides[k]
		}
		if broadcast && r.IntN(4) == 0 {
			strides[k] = 0
		}
	}
	lo, hi := 0, itemsize
	for k, n := range shape {
		if n == 0 {
			return testOperand{buf: make([]byte, 64), op: operand{strides: strides}}
		}
		if strides[k] < 0 {
			lo += strides[k] * (n - 1)
		} else {
			hi += strides[k] * (n - 1)
		}
	}
	pad := r.IntN(3) * (r.IntN(17))
	buf := make([]byte, hi-lo+pad+32)
	base := -lo + pad
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	t := testOperand{buf: buf, base: base}
	t.op = operand{addr: uintptr(unsafe.Pointer(&buf[base])), strides: strides}
	return t
}

// refCopy is the meaning of a copy: every element of src into dst, in C order.
func refCopy(dst, src testOperand, shape []int, itemsize int) {
	idx := make([]int, len(shape))
	if slices.Contains(shape, 0) {
		return
	}
	for {
		d, s := dst.base, src.base
		for k, i := range idx {
			d += i * dst.op.strides[k]
			s += i * src.op.strides[k]
		}
		copy(dst.buf[d:d+itemsize], src.buf[s:s+itemsize])
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

func randomShape(r *rand.Rand) []int {
	shape := make([]int, r.IntN(5))
	for k := range shape {
		shape[k] = 1 + r.IntN(6)
		if r.IntN(10) == 0 {
			shape[k] = r.IntN(2)
		}
	}
	return shape
}

// The kernels of kernels.ptx, run by the interpreter, do what a copy means
// for random layouts, item sizes, broadcasts and reversed axes.
func TestCopyKernelsRunCorrectly(t *testing.T) {
	funcs := parsePTX(t, kernelModule())
	r := rand.New(rand.NewPCG(3, 4))
	seen := map[kernel]int{}
	for iter := range 400 {
		shape := randomShape(r)
		itemsize := []int{1, 2, 4, 8, 16, 3, 12, 13, 32}[r.IntN(9)]
		dst := randomOperand(r, shape, itemsize, false)
		src := randomOperand(r, shape, itemsize, true)
		if r.IntN(4) == 0 { // misalign one side by a byte
			src.base++ // the buffer has room to spare at its end
			src.op.addr++
		}
		want := testOperand{buf: bytes.Clone(dst.buf), base: dst.base, op: dst.op}
		refCopy(want, src, shape, itemsize)
		l, n, ok := planCopyKernel(dst.op, src.op, shape, itemsize)
		if !ok {
			t.Fatalf("iter %d: no plan", iter)
		}
		if n == 1 {
			seen[l.k]++
			checkGeometry(t, l)
			runPTX(t, funcs[l.k.String()], l)
		}
		if !bytes.Equal(dst.buf, want.buf) {
			t.Fatalf("iter %d: %s shape %v itemsize %d dst strides %v src strides %v: wrong bytes",
				iter, l.k, shape, itemsize, dst.op.strides, src.op.strides)
		}
	}
	for _, k := range []kernel{kCopy1, kCopy2, kCopy4, kCopy8, kCopy16} {
		if seen[k] == 0 {
			t.Errorf("%s never ran (%v)", k, seen)
		}
	}
}

func TestFillKernelsRunCorrectly(t *testing.T) {
	funcs := parsePTX(t, kernelModule())
	r := rand.New(rand.NewPCG(5, 6))
	seen := map[kernel]int{}
	for iter := range 300 {
		shape := randomShape(r)
		itemsize := []int{1, 2, 4, 8, 16, 3, 13, 64}[r.IntN(8)]
		dst := randomOperand(r, shape, itemsize, false)
		if r.IntN(4) == 0 {
			dst.base++
			dst.op.addr++
		}
		item := make([]byte, itemsize)
		for i := range item {
			item[i] = byte(r.Uint32())
		}
		one := testOperand{buf: item, op: operand{strides: make([]int, len(shape))}}
		want := testOperand{buf: bytes.Clone(dst.buf), base: dst.base, op: dst.op}
		refCopy(want, one, shape, itemsize)
		l, n, ok := planFillKernel(dst.op, shape, item)
		if !ok {
			t.Fatalf("iter %d: no plan", iter)
		}
		if n == 1 {
			seen[l.k]++
			checkGeometry(t, l)
			runPTX(t, funcs[l.k.String()], l)
		}
		if !bytes.Equal(dst.buf, want.buf) {
			t.Fatalf("iter %d: %s shape %v itemsize %d strides %v: wrong bytes", iter, l.k, shape, itemsize, dst.op.strides)
		}
	}
	for k := kFill1; k <= kFillBytes; k++ {
		if seen[k] == 0 {
			t.Errorf("%s never ran (%v)", k, seen)
		}
	}
	if _, _, ok := planFillKernel(operand{addr: 64, strides: []int{65}}, []int{2}, make([]byte, 65)); ok {
		t.Fatal("a 65-byte item fits no argument block")
	}
}

// checkGeometry holds a launch to the limits of every CUDA GPU.
func checkGeometry(t *testing.T, l launch) {
	t.Helper()
	b, g := l.block, l.grid
	if b[0]*b[1]*b[2] != blockThreads || b[2] != 1 || g[2] != 1 {
		t.Fatalf("block %v grid %v", b, g)
	}
	if g[0] < 1 || g[1] < 1 || g[0] > maxGridDim || g[1] > maxGridDim {
		t.Fatalf("grid %v outside 1..65535", g)
	}
}

// Geometry for large walks stays inside the limits and lets every thread work.
func TestGeometryLimits(t *testing.T) {
	cases := []struct {
		name       string
		n0, rows   int
		bx, gx, gy uint32
	}{
		{"one element", 1, 1, 1, 1, 1},
		{"short rows", 3, 1000, 4, 1, 16},
		{"wide rows", 8192, 4096, 256, 32, 4096},
		{"huge 1-D", 1 << 30, 1, 256, maxGridDim, 1},
		{"many rows", 2, 1 << 30, 2, 1, maxGridDim},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, g := geometry(c.n0, c.rows)
			if b[0] != c.bx || g[0] != c.gx || g[1] != c.gy || b[0]*b[1] != blockThreads {
				t.Fatalf("block %v grid %v", b, g)
			}
		})
	}
}

// The module is plain ASCII text (ptxas refuses anything else), ends with the
// NUL cuModuleLoadData needs, and has every entry exactly once.
func TestModuleText(t *testing.T) {
	m := kernelModule()
	if !strings.HasSuffix(m, "\x00") || strings.Count(m, "\x00") != 1 {
		t.Fatal("module must end with one NUL")
	}
	for i := 0; i < len(m); i++ {
		if m[i] >= 0x80 {
			t.Fatalf("non-ASCII byte at %d", i)
		}
	}
	for k := range numKernels {
		if c := strings.Count(m, ".visible .entry "+k.String()+"("); c != 1 {
			t.Fatalf("%s appears %d times", k, c)
		}
	}
	if !strings.Contains(m, "args["+strconv.Itoa(argsSize)+"]") {
		t.Fatalf("the entries do not take a %d-byte block", argsSize)
	}
}

// The unit and the walk: wide units where rows are contiguous in both
// operands, the item's width where they are not, and 2-D walks that need no
// division (one outer axis).
func TestCopyKernelChoice(t *testing.T) {
	const base = 1 << 20 // 256-byte aligned, like every CUDA allocation
	cases := []struct {
		name       string
		shape      []int
		ds, ss     []int
		itemsize   int
		srcOff     uintptr
		k          kernel
		n0, nouter int
	}{
		{"rows reversed, float32", []int{64, 128}, []int{512, 4}, []int{-512, 4}, 4, 63 * 512, kCopy16, 32, 1},
		{"every 2nd float32", []int{64, 128}, []int{512, 4}, []int{1024, 8}, 4, 0, kCopy4, 64 * 128, 0},
		{"both reversed, float32", []int{64, 128}, []int{512, 4}, []int{-512, -4}, 4, 64*512 - 4, kCopy4, 64 * 128, 0},
		{"complex128 transposed", []int{8, 16}, []int{256, 16}, []int{16, 128}, 16, 0, kCopy16, 16, 1},
		{"misaligned source", []int{64, 128}, []int{512, 4}, []int{512, 4}, 4, 1, kCopy1, 64 * 512, 0},
		{"13-byte records", []int{10}, []int{13}, []int{26}, 13, 0, kCopy1, 13, 1},
		{"broadcast row", []int{64, 128}, []int{512, 4}, []int{0, 4}, 4, 0, kCopy16, 32, 1},
		{"3-D", []int{4, 5, 6}, []int{240, 48, 8}, []int{8, 32, 160}, 8, 0, kCopy8, 6, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, n, ok := planCopyKernel(operand{base, c.ds}, operand{base + 1<<16 + c.srcOff, c.ss}, c.shape, c.itemsize)
			le := binary.LittleEndian
			n0, nouter := int(le.Uint64(l.args[argN0:])), int(le.Uint32(l.args[argNOuter:]))
			if !ok || n != 1 || l.k != c.k || n0 != c.n0 || nouter != c.nouter {
				t.Fatalf("%s n0 %d nouter %d (ok %v n %d); want %s n0 %d nouter %d", l.k, n0, nouter, ok, n, c.k, c.n0, c.nouter)
			}
		})
	}
}
