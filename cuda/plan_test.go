package cuda

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/memview/memview/memview"
)

// runPlan executes a plan on host memory as the driver would: each 2-D copy
// moves height rows of width bytes.
func runPlan(ops []copy2D) {
	for _, o := range ops {
		for r := range o.height {
			d := unsafe.Slice((*byte)(addrPointer(o.dst+uintptr(r*o.dstPitch))), o.width)
			s := unsafe.Slice((*byte)(addrPointer(o.src+uintptr(r*o.srcPitch))), o.width)
			copy(d, s)
		}
	}
}

// randomView returns a random strided view (slices with steps of either sign,
// a random transpose) of a fresh host array of the given shape whose elements
// are distinct.
func randomView(t *testing.T, r *rand.Rand, p *memview.Pool, shape []int) *memview.Array {
	t.Helper()
	big := make([]int, len(shape))
	for k, n := range shape {
		big[k] = n*(1+r.IntN(3)) + r.IntN(2)
	}
	base, err := memview.Empty(p, big, memview.Int32, 'C')
	if err != nil {
		t.Fatal(err)
	}
	defer base.Release()
	for i, b := 0, base.Buffer().Bytes(); i+4 <= len(b); i += 4 {
		*(*int32)(unsafe.Pointer(&b[i])) = int32(r.Uint32())
	}
	perm := r.Perm(len(shape))
	keys := make([]memview.Index, len(big))
	for k := range big {
		n := shape[perm[k]]
		step := 1 + r.IntN(max(1, big[k]/max(n, 1)))
		if r.IntN(2) == 0 {
			keys[k] = memview.Slice(0, n*step, step)
		} else {
			keys[k] = memview.Slice(n*step-1, -1-big[k], -step) // backwards
			if n*step-1 >= big[k] {
				keys[k] = memview.Slice(0, n, 1)
			}
		}
	}
	v, err := base.Index(keys...)
	if err != nil {
		t.Fatalf("index %v of %v: %v", keys, big, err)
	}
	defer v.Release()
	// Put the axes in shape's order: v's axis k has length shape[perm[k]].
	inv := make([]int, len(perm))
	for k, pk := range perm {
		inv[pk] = k
	}
	out, err := v.Transpose(inv...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Shape(), shape) {
		// A backwards slice that did not fit was replaced by a short forward one.
		_ = out.Release()
		c, err := memview.Empty(p, shape, memview.Int32, 'C')
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return out
}

func equalElements(t *testing.T, a, b *memview.Array) bool {
	t.Helper()
	ca, err := a.Copy(nil, 'C')
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Release()
	cb, err := b.Copy(nil, 'C')
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	return slices.Equal(ca.Buffer().Bytes(), cb.Buffer().Bytes())
}

// Every plan, run with memmove, must do what memview.CopyInto does; and a plan
// must exist whenever src's directions agree with dst's (as with a dense
// temporary made by denseLike).
func TestPlan2DMatchesCopyInto(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := memview.NewPool(memview.NewCheckedAllocator(&memview.GoAllocator{}))
	planned, multi := 0, 0
	for iter := range 1000 {
		nd := r.IntN(5)
		shape := make([]int, nd)
		for k := range shape {
			shape[k] = r.IntN(7)
			if r.IntN(8) == 0 {
				shape[k] = 1
			}
		}
		dst := randomView(t, r, p, shape)
		src := randomView(t, r, p, shape)
		want, err := dst.Copy(nil, 'C')
		if err != nil {
			t.Fatal(err)
		}
		ww, err := memview.NewArray(want.Buffer(), want.DType(), want.Shape(), nil, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := memview.CopyInto(ww, src); err != nil {
			t.Fatal(err)
		}
		ops, ok := planArrays(dst, src)
		if ok {
			planned++
			if len(ops) > 1 {
				multi++
			}
			runPlan(ops)
			if !equalElements(t, dst, ww) {
				t.Fatalf("iter %d: shape %v dst strides %v src strides %v: plan %v gives wrong elements",
					iter, shape, dst.Strides(), src.Strides(), ops)
			}
		}
		// A dense temporary like src always has a plan both ways.
		tmp, err := newLike(p, src)
		if err != nil {
			t.Fatal(err)
		}
		if ops, ok := planArrays(tmp, src); !ok {
			t.Fatalf("iter %d: no plan into denseLike(%v, %v)", iter, shape, src.Strides())
		} else {
			runPlan(ops)
		}
		if !equalElements(t, tmp, src) {
			t.Fatalf("iter %d: dense temporary differs from its source", iter)
		}
		if ops, ok := planArrays(src, tmp); !ok {
			t.Fatalf("iter %d: no plan from denseLike(%v, %v)", iter, shape, src.Strides())
		} else if isDense(src.Shape(), src.Strides(), 4) && len(ops) != 1 && src.Size() > 0 {
			t.Fatalf("iter %d: a dense pair needs %d copies, want 1", iter, len(ops))
		}
		for _, a := range []*memview.Array{dst, src, want, ww, tmp} {
			if err := a.Release(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p.NumLive() != 0 {
		t.Fatalf("%d allocations still live", p.NumLive())
	}
	// The random views must exercise real plans, not only trivial ones.
	if planned < 300 || multi < 20 {
		t.Fatalf("only %d direct plans (%d with several copies) in 1000 cases", planned, multi)
	}
	t.Logf("%d direct plans, %d with several copies", planned, multi)
}

func TestDenseLike(t *testing.T) {
	cases := []struct {
		name           string
		shape, strides []int
		want           []int
		offset, size   int
		dense          bool
	}{
		{"C order", []int{2, 3}, []int{24, 8}, []int{24, 8}, 0, 48, true},
		{"F order", []int{2, 3}, []int{8, 16}, []int{8, 16}, 0, 48, true},
		{"step 2", []int{4}, []int{16}, []int{8}, 0, 32, false},
		{"reversed", []int{4}, []int{-8}, []int{-8}, 24, 32, true},
		{"reversed rows", []int{2, 3}, []int{-24, 8}, []int{-24, 8}, 24, 48, true},
		{"0-d", []int{}, []int{}, []int{}, 0, 8, true},
		{"empty", []int{0, 3}, []int{24, 8}, []int{24, 8}, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, off, size := denseLike(c.shape, c.strides, 8)
			if !slices.Equal(d, c.want) || off != c.offset || size != c.size {
				t.Fatalf("denseLike = %v, %d, %d; want %v, %d, %d", d, off, size, c.want, c.offset, c.size)
			}
			if isDense(c.shape, c.strides, 8) != c.dense {
				t.Fatalf("isDense = %v", !c.dense)
			}
		})
	}
}

// Rows further apart than the driver's largest pitch are copied one by one.
func TestPlan2DHugePitch(t *testing.T) {
	ops, ok := plan2D(operand{0x1000, []int{1 << 32, 8}}, operand{0x100000, []int{16, 8}}, []int{3, 2}, 8)
	if !ok || len(ops) != 3 {
		t.Fatalf("plan %v, %v", ops, ok)
	}
	for _, o := range ops {
		if o.height != 1 || o.width != 16 {
			t.Fatalf("op %+v", o)
		}
	}
}

// Without a driver, allocators, streams and copies report ErrNoDevice.
func TestNoDriverAllocatorsAndStreams(t *testing.T) {
	if Available() {
		t.Skip("a CUDA driver and device are present: this test covers machines without one")
	}
	for _, dev := range []memview.Device{{Kind: memview.CUDA}, {Kind: memview.CUDAHost}, {Kind: memview.CUDAManaged, ID: 1}} {
		if _, err := Pool(dev); !isNoDevice(err) {
			t.Fatalf("Pool(%v): %v", dev, err)
		}
	}
	if _, err := NewAllocator(memview.Device{}); !isInvalid(err) {
		t.Fatalf("NewAllocator(cpu): %v", err)
	}
	if _, err := NewStream(0, false); !isNoDevice(err) {
		t.Fatalf("NewStream: %v", err)
	}
	if err := StreamOf(0, 0).Synchronize(); !isNoDevice(err) {
		t.Fatalf("Synchronize: %v", err)
	}
}
