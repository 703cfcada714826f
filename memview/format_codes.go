package memview

import (
	"runtime"
	"sort"
	"strconv"
)

// formatCode describes one format code. std is the size with standard sizes
// ('=' '<' '>' '!'); 0 means the code exists only with native sizes, as in
// struct. nativeSize and nativeAlign give the size and alignment under '@'.
// kind is the NumPy kind of what the code holds (see FormatCode).
type formatCode struct {
	std, nativeSize, nativeAlign int
	kind                         byte
}

// Native sizes and alignments are those of the C types on GOOS/GOARCH: long
// is 8 bytes on 64-bit Unix and 4 on Windows and 32-bit platforms; size_t and
// pointers are the word size; 8-byte types are 4-aligned on 386 Unix only;
// wchar_t is 4 bytes (UCS-4) but on Windows (2, UCS-2). (Checked against
// struct.calcsize on linux/amd64.)
var (
	wordSize   = strconv.IntSize / 8
	longSize   = pick(strconv.IntSize == 64 && runtime.GOOS != "windows", 8, 4)
	eightAlign = pick(runtime.GOARCH == "386" && runtime.GOOS != "windows", 4, 8)
	wcharSize  = pick(runtime.GOOS == "windows", 2, 4)
)

// pick returns a if c, else b.
func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// formatCodes lists every code ParseFormat knows, keyed by its text.
var formatCodes = map[string]formatCode{
	"?": {1, 1, 1, 'b'}, "c": {1, 1, 1, 'S'}, "b": {1, 1, 1, 'i'}, "B": {1, 1, 1, 'u'},
	"h": {2, 2, 2, 'i'}, "H": {2, 2, 2, 'u'}, "i": {4, 4, 4, 'i'}, "I": {4, 4, 4, 'u'},
	"l": {4, longSize, longSize, 'i'}, "L": {4, longSize, longSize, 'u'},
	"q": {8, 8, eightAlign, 'i'}, "Q": {8, 8, eightAlign, 'u'},
	"n": {0, wordSize, wordSize, 'i'}, "N": {0, wordSize, wordSize, 'u'},
	// 'P' has the pointer size with a standard prefix too ("<P", as ctypes
	// writes c_void_p), which struct refuses.
	"P": {wordSize, wordSize, wordSize, 'u'},
	"e": {2, 2, 2, 'f'}, "f": {4, 4, 4, 'f'}, "d": {8, 8, eightAlign, 'f'},
	"Ze": {4, 4, 2, 'c'}, "Zf": {8, 8, 4, 'c'}, "Zd": {16, 16, eightAlign, 'c'},
	"s": {1, 1, 1, 'S'}, "p": {1, 1, 1, 'V'}, "x": {1, 1, 1, 'V'},
	// NumPy's extensions: long double (16 bytes: x87 extended on x86-64, binary128 on arm64; longdouble.go) and
	// its complex, and UCS-4 characters ("3w" is NumPy's "<U3").
	"g": {16, 16, 16, 'f'}, "Zg": {32, 32, 16, 'c'}, "w": {4, 4, 4, 'U'},
}

// FormatCode describes one PEP 3118 format code that ParseFormat reads.
type FormatCode struct {
	Code        string // "?", "b", ... "Zd", "s", "w"
	Kind        byte   // NumPy's kind of what it holds: 'b', 'i', 'u', 'f', 'c', 'S' (bytes), 'U' (UCS-4), 'V' (opaque)
	StdSize     int    // size with standard sizes ('=', '<', '>', '!'); 0 where only native sizes have it
	NativeSize  int    // size under '@' on this platform
	NativeAlign int    // alignment under '@' on this platform
}

// FormatCodes returns every format code ParseFormat reads, sorted by code:
// the table the languages beside Go read theirs from (tools/gendtypes).
func FormatCodes() []FormatCode {
	out := make([]FormatCode, 0, len(formatCodes))
	for code, c := range formatCodes {
		out = append(out, FormatCode{code, c.kind, c.std, c.nativeSize, c.nativeAlign})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// refusedCodes are codes of PEP 3118 that name what no shared memory can
// hold, with the reason ParseFormat gives.
var refusedCodes = map[string]string{
	"O": "Python object references ('O') are not plain data: they need reference counting that shared memory cannot do",
	"&": "pointers ('&') point outside the buffer: memview shares plain data only",
}
