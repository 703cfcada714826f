// Command goffsets prints the byte offset of the runtime's goroutine status word
// (runtime.g's atomicstatus field) for the Go toolchain that builds it, read from
// its own DWARF. The extension's build links the number in (pyext's gStatusOffset),
// and pyext/fork.go uses it, after checking it at run time, to repair a forked
// child's goroutine (see pyext/fork.go). Build it without -s/-w; prints nothing and
// exits 1 when the field cannot be found.
package main

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
)

func main() {
	off, err := statusOffset()
	if err != nil {
		fmt.Fprintln(os.Stderr, "goffsets:", err)
		os.Exit(1)
	}
	fmt.Println(off)
}

func statusOffset() (int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	f, err := elf.Open(exe)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return 0, fmt.Errorf("no DWARF in %s (built with -w?): %w", exe, err)
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return 0, err
		}
		if e == nil {
			return 0, fmt.Errorf("runtime.g not found in %s", exe)
		}
		if e.Tag != dwarf.TagStructType || e.Val(dwarf.AttrName) != "runtime.g" || !e.Children {
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
				return 0, fmt.Errorf("runtime.g has no atomicstatus field")
			}
			if m.Tag == dwarf.TagMember && m.Val(dwarf.AttrName) == "atomicstatus" {
				if off, ok := m.Val(dwarf.AttrDataMemberLoc).(int64); ok {
					return off, nil
				}
				return 0, fmt.Errorf("runtime.g.atomicstatus has no constant offset")
			}
			if m.Children {
				r.SkipChildren()
			}
		}
	}
}
