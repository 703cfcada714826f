// Command gendtypes writes the Go core's tables of item types into the
// languages that need them beside Go, so that each fact is written once: the
// basic dtypes (memview.DTypes: name, kind, item size, PEP 3118 format,
// typestr) and the format codes (memview.FormatCodes: code, kind, sizes).
//
//	pyext/dtypes_table.h             an X-macro, MV_BASIC_DTYPES(X), for pyext's C
//	python/memview/_dtypes_table.py  BASIC and CODES, tuples of rows, for the facade
//
// Run it from the repository root (go generate ./pyext does); -check reports
// files that differ from what it would write, and fails.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memview/memview/memview"
)

const head = "Written by tools/gendtypes from the Go core's tables (memview.DTypes, memview.FormatCodes): do not edit."

func cTable() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n", head)
	b.WriteString(`/*
 * dtypes_table.h — memview's basic dtypes, in the Go core's order (MV_K_* of
 * mem.h and DType ids follow it): X(name, kind, itemsize, format, typestr),
 * the name and strings as C string literals, kind as a character literal.
 */
#ifndef MEMVIEW_DTYPES_TABLE_H
#define MEMVIEW_DTYPES_TABLE_H

#define MV_BASIC_DTYPES(X)`)
	for _, d := range memview.DTypes() {
		fmt.Fprintf(&b, " \\\n    X(%q, '%c', %d, %q, %q)", d.Name(), d.Kind(), d.Itemsize(), d.Format(), d.Typestr())
	}
	fmt.Fprintf(&b, "\n\n#define MV_N_BASIC_DTYPES %d\n\n#endif\n", len(memview.DTypes()))
	return b.Bytes()
}

func pyTable() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\"\"\"%s\n\nBASIC: one row per basic dtype, in the Go core's order: (name, kind,\nitemsize, PEP 3118 format, typestr).\n", head)
	b.WriteString("CODES: one row per PEP 3118 format code the Go core reads, by code: (code,\nNumPy kind of what it holds, standard size or 0 where only native sizes\nhave it).\"\"\"\n\nBASIC = (\n")
	for _, d := range memview.DTypes() {
		fmt.Fprintf(&b, "    (%q, %q, %d, %q, %q),\n", d.Name(), string(d.Kind()), d.Itemsize(), d.Format(), d.Typestr())
	}
	b.WriteString(")\n\nCODES = (\n")
	for _, c := range memview.FormatCodes() {
		fmt.Fprintf(&b, "    (%q, %q, %d),\n", c.Code, string(c.Kind), c.StdSize)
	}
	b.WriteString(")\n")
	return b.Bytes()
}

func main() {
	check := flag.Bool("check", false, "fail if a written file differs from what would be written")
	flag.Parse()
	files := map[string][]byte{
		filepath.Join("pyext", "dtypes_table.h"):               cTable(),
		filepath.Join("python", "memview", "_dtypes_table.py"): pyTable(),
	}
	stale := 0
	for path, want := range files {
		have, err := os.ReadFile(path)
		if err == nil && bytes.Equal(have, want) {
			continue
		}
		if *check {
			fmt.Fprintf(os.Stderr, "tools/gendtypes: %s is out of date: run go generate ./pyext\n", path)
			stale++
			continue
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "tools/gendtypes:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
	if stale > 0 {
		os.Exit(1)
	}
}
