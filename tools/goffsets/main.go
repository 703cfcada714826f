// Command goffsets prints byte offsets inside the runtime's structures for the Go
// toolchain that builds it, read from its own DWARF, as one comma-separated line:
//
//	g.atomicstatus,schedt.lock+mutex.key,schedt.nmspinning,schedt.npidle
//
// The extension's build links the line in (pyext's runtimeOffsets), and
// pyext/fork.go uses the numbers, after checking them at run time, to make a fork
// safe: the goroutine status word for the forked-child repair; the scheduler's
// lock and its counts of spinning threads and idle Ps to fork only when the
// runtime is quiet (see pyext/fork.go). Build it without -s/-w; prints nothing and exits 1 when a field
// cannot be found.
package main

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
)

func main() {
	d, err := ownDWARF()
	if err == nil {
		var out [5]int64 // status, sched lock, key, spinning, idle Ps
		for i, f := range []struct{ typ, field string }{
			{"runtime.g", "atomicstatus"},
			{"runtime.schedt", "lock"},
			{"runtime.mutex", "key"},
			{"runtime.schedt", "nmspinning"},
			{"runtime.schedt", "npidle"},
		} {
			if out[i], err = fieldOffset(d, f.typ, f.field); err != nil {
				break
			}
		}
		if err == nil {
			fmt.Printf("%d,%d,%d,%d\n", out[0], out[1]+out[2], out[3], out[4])
			return
		}
	}
	fmt.Fprintln(os.Stderr, "goffsets:", err)
	os.Exit(1)
}

func ownDWARF() (*dwarf.Data, error) {
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

// fieldOffset returns the offset of field in the struct type named typ.
func fieldOffset(d *dwarf.Data, typ, field string) (int64, error) {
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
