package memview

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

func FuzzNewLayout(f *testing.F) {
	f.Add([]byte{4, 6}, []byte{48, 0, 8, 0}, 0, 8, 192, 0)
	f.Add([]byte{4, 3}, []byte{0xd0, 0xff, 16, 0}, 144, 8, 192, 0)
	f.Add([]byte{}, []byte{}, 184, 8, 192, 0)
	f.Add([]byte{7, 0, 7}, []byte{}, 192, 8, 192, 0)
	f.Add([]byte{2, 2}, []byte{1, 0, 1, 0}, 0, 1, 100, math.MaxInt)
	f.Add([]byte{3}, []byte{0xff, 0x7f}, -5, 3, 1<<20, -1)
	f.Fuzz(func(t *testing.T, shapeB, strideB []byte, offset, itemsize, extent, big int) {
		nd := min(len(shapeB), 8)
		shape := make([]int, nd)
		for k := range shape {
			shape[k] = int(shapeB[k] % 5)
		}
		var strides []int
		if len(strideB) > 0 {
			strides = make([]int, nd)
			for k := range strides {
				if 2*k+2 <= len(strideB) {
					strides[k] = int(int16(binary.LittleEndian.Uint16(strideB[2*k:])))
				}
			}
		}
		if big != 0 && nd > 0 {
			shape[0] = big
			if len(strides) > 1 {
				strides[1] = big
			}
		}
		l, err := NewLayout(shape, strides, offset, itemsize, extent)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if l.Size() > 1<<14 {
			return
		}
		if l.Size() == 0 {
			if l.Offset < 0 || l.Offset > extent {
				t.Fatalf("empty layout offset %d outside [0, %d]", l.Offset, extent)
			}
			return
		}
		lo, hi := l.Span()
		if l.Offset+lo < 0 || l.Offset+hi > extent {
			t.Fatalf("span [%d, %d) + offset %d outside [0, %d)", lo, hi, l.Offset, extent)
		}
		for _, idx := range indices(l.Shape) {
			addr := l.Offset
			for k, i := range idx {
				addr += i * l.Strides[k]
			}
			if addr < 0 || addr+l.Itemsize > extent || addr < l.Offset+lo || addr+l.Itemsize > l.Offset+hi {
				t.Fatalf("element %v at bytes [%d, %d) outside [0, %d) of %+v", idx, addr, addr+l.Itemsize, extent, l)
			}
		}
	})
}

func FuzzIndex(f *testing.F) {
	f.Add([]byte{4, 6}, false, []byte{1, 0, 0, 0xff, 1, 0, 0, 2})
	f.Add([]byte{5}, true, []byte{1 | 8 | 16 | 32, 0x80, 0x7f, 0xfd})
	f.Add([]byte{2, 3, 4}, false, []byte{2, 0, 0, 0, 0, 0xff, 0, 0, 3, 0, 0, 0})
	f.Add([]byte{0, 3}, true, []byte{0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, dims []byte, reversed bool, key []byte) {
		nd := min(len(dims), 3)
		shape := make([]int, nd)
		for k := range shape {
			shape[k] = int(dims[k] % 6)
		}
		p := newTestPool(t)
		a := arange(t, p, Float64, shape...)
		if reversed && nd > 0 {
			a = must(t)(a.Index(SliceStep(-1)))
		}
		var idx []Index
		for i := 0; i+4 <= len(key) && len(idx) < 6; i += 4 {
			b0 := key[i]
			x := Index{Kind: IndexKind(b0 % 5)}
			v1, v2, v3 := int(int8(key[i+1])), int(int8(key[i+2])), int(int8(key[i+3]))
			switch x.Kind {
			case IndexInt:
				x.I = v1
			case IndexSlice:
				x.Start, x.Stop, x.Step = v1, v2, v3
				x.HasStart, x.HasStop, x.HasStep = b0&8 != 0, b0&16 != 0, b0&32 != 0
			case 4:
				x = Full()
			}
			idx = append(idx, x)
		}
		v, err := a.Index(idx...)
		if err != nil {
			if !errors.Is(err, ErrIndex) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v wraps neither ErrIndex nor ErrInvalid", err)
			}
			return
		}
		release(t, v)
		if _, err := NewLayout(v.Shape(), v.Strides(), v.Offset(), 8, v.Buffer().Len()); err != nil {
			t.Fatalf("view layout invalid: %v", err)
		}
		size := a.Size()
		for _, vi := range indices(v.Shape()) {
			x, err := v.Float64(vi...)
			if err != nil {
				t.Fatal(err)
			}
			if x != math.Trunc(x) || x < 0 || int(x) >= size {
				t.Fatalf("view element %v = %v is not an element of the base", vi, x)
			}
		}
	})
}
