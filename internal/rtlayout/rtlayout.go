// Package rtlayout reads the byte offsets inside the Go runtime's structures
// that memview's fork safeguards need (pyext/fork.go), from the DWARF of a Go
// binary built by the same toolchain: tools/goffsets prints them for the
// extension's build, and pyext/gptr's tests check them against their own
// binary.
package rtlayout

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
)

// Offsets are the runtime's offsets, in bytes.
type Offsets struct {
	Status   int64 // g.atomicstatus
	Lock     int64 // schedt.lock + mutex.key: the scheduler's lock word
	Spinning int64 // schedt.nmspinning
	Idle     int64 // schedt.npidle
	// HeapBack is the distance from the heap's lock to the pointer back to it
	// that the heap's page allocator holds (mheap.pages + pageAlloc.mheapLock -
	// mheap.lock): the one word in the runtime's data that holds its own
	// address less HeapBack, by which the heap is found.
	HeapBack int64
	HeapLock int64 // mheap.lock + mutex.key: the heap's lock word in the heap
	GM       int64 // g.m: a goroutine's thread (M)
	MP       int64 // m.p: the thread's P, cleared when the monitor takes it away
}

// String is the line the extension's build links in (pyext's runtimeOffsets).
func (o Offsets) String() string {
	return fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%d", o.Status, o.Lock, o.Spinning, o.Idle, o.HeapBack, o.HeapLock,
		o.GM, o.MP)
}

// Read returns the offsets from d.
func Read(d *dwarf.Data) (o Offsets, err error) {
	var v [10]int64
	for i, f := range []struct{ typ, field string }{
		{"runtime.g", "atomicstatus"},
		{"runtime.schedt", "lock"},
		{"runtime.mutex", "key"},
		{"runtime.schedt", "nmspinning"},
		{"runtime.schedt", "npidle"},
		{"runtime.mheap", "lock"},
		{"runtime.mheap", "pages"},
		{"runtime.pageAlloc", "mheapLock"},
		{"runtime.g", "m"},
		{"runtime.m", "p"},
	} {
		if v[i], err = FieldOffset(d, f.typ, f.field); err != nil {
			return o, err
		}
	}
	return Offsets{
		Status: v[0], Lock: v[1] + v[2], Spinning: v[3], Idle: v[4],
		HeapBack: v[6] + v[7] - v[5], HeapLock: v[5] + v[2], GM: v[8], MP: v[9],
	}, nil
}

// OwnDWARF returns the DWARF of the running executable (built without -w).
func OwnDWARF() (*dwarf.Data, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f, err := elf.Open(exe)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("no DWARF in %s (built with -w?): %w", exe, err)
	}
	return d, nil
}

// FieldOffset returns the offset of field in the struct type named typ.
func FieldOffset(d *dwarf.Data, typ, field string) (int64, error) {
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return 0, err
		}
		if e == nil {
			return 0, fmt.Errorf("%s not found", typ)
		}
		if e.Tag != dwarf.TagStructType || e.Val(dwarf.AttrName) != typ || !e.Children {
			if e.Children && e.Tag != dwarf.TagCompileUnit {
				r.SkipChildren()
			}
			continue
		}
		for {
			m, err := r.Next()
			if err != nil {
				return 0, err
			}
			if m == nil || m.Tag == 0 {
				return 0, fmt.Errorf("%s has no field %s", typ, field)
			}
			if m.Tag == dwarf.TagMember && m.Val(dwarf.AttrName) == field {
				if off, ok := m.Val(dwarf.AttrDataMemberLoc).(int64); ok {
					return off, nil
				}
				return 0, fmt.Errorf("%s.%s has no constant offset", typ, field)
			}
			if m.Children {
				r.SkipChildren()
			}
		}
	}
}
