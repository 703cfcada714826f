package memview

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
)

// A big-endian record array made in Go reads and writes field by field, on a
// little-endian machine, and its bytes are the big-endian encoding.
func TestItemRecords(t *testing.T) {
	p := NewPool(NewCheckedAllocator(&GoAllocator{}))
	dt, err := DTypeFromFormat("T{>i:a:>d:b:(2)B:c:}")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Empty(p, []int{3}, dt, 'C')
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := a.Release(); err != nil || p.NumLive() != 0 {
			t.Fatalf("release %v, %d live", err, p.NumLive())
		}
	}()
	want := []any{int64(-7), 2.5, []any{uint64(1), uint64(2)}}
	if err := a.SetItem(want, 1); err != nil {
		t.Fatal(err)
	}
	got, err := a.Item(-2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Item = %#v, want %#v", got, want)
	}
	b, _ := a.ItemBytes(1)
	if int32(binary.BigEndian.Uint32(b)) != -7 || math.Float64frombits(binary.BigEndian.Uint64(b[4:])) != 2.5 {
		t.Fatalf("bytes % x are not big-endian", b)
	}
	before := append([]byte{}, b...)
	if err := a.SetItem([]any{"x", 1.0, []any{uint64(0), uint64(0)}}, 1); !errors.Is(err, ErrType) {
		t.Fatalf("wrong Go type: %v", err)
	}
	if err := a.SetItem([]any{int64(1)}, 1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("too few values: %v", err)
	}
	if string(b) != string(before) {
		t.Fatal("a refused SetItem changed the element")
	}
	if _, err := a.Item(3); !errors.Is(err, ErrIndex) {
		t.Fatalf("out of range: %v", err)
	}
	ro, _ := a.AsReadOnly()
	defer ro.Release()
	if err := ro.SetItem(want, 0); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only: %v", err)
	}
}

func TestItemBasicTypes(t *testing.T) {
	a, err := Empty(nil, []int{2}, Complex64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if err := a.SetItem([]any{complex(1, -2)}, 0); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Item(0); err != nil || v[0] != complex128(complex(1, -2)) {
		t.Fatalf("Item = %v, %v", v, err)
	}
}
