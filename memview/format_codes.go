package memview

import (
	"runtime"
	"strconv"
)

// formatCode describes one format code. std is the size with standard sizes
// ('=' '<' '>' '!'); 0 means the code exists only with native sizes, as in
// struct. nativeSize and nativeAlign give the size and alignment under '@'.
type formatCode struct {
	std, nativeSize, nativeAlign int
}

// Native sizes and alignments are those of the C types on GOOS/GOARCH: long
// is 8 bytes on 64-bit Unix and 4 on Windows and 32-bit platforms; size_t and
// pointers are the word size; 8-byte types are 4-aligned on 386 Unix only.
// (Checked against struct.calcsize on linux/amd64.)
var (
	wordSize   = strconv.IntSize / 8
	longSize   = pick(strconv.IntSize == 64 && runtime.GOOS != "windows", 8, 4)
	eightAlign = pick(runtime.GOARCH == "386" && runtime.GOOS != "windows", 4, 8)
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
	"?": {1, 1, 1}, "c": {1, 1, 1}, "b": {1, 1, 1}, "B": {1, 1, 1},
	"h": {2, 2, 2}, "H": {2, 2, 2}, "i": {4, 4, 4}, "I": {4, 4, 4},
	"l": {4, longSize, longSize}, "L": {4, longSize, longSize},
	"q": {8, 8, eightAlign}, "Q": {8, 8, eightAlign},
	"n": {0, wordSize, wordSize}, "N": {0, wordSize, wordSize}, "P": {0, wordSize, wordSize},
	"e": {2, 2, 2}, "f": {4, 4, 4}, "d": {8, 8, eightAlign},
	"Ze": {4, 4, 2}, "Zf": {8, 8, 4}, "Zd": {16, 16, eightAlign},
	"s": {1, 1, 1}, "p": {1, 1, 1}, "x": {1, 1, 1},
	// NumPy's extensions: x86-64 long double (80-bit extended in 16 bytes) and
	// its complex, and UCS-4 characters ("3w" is NumPy's "<U3").
	"g": {16, 16, 16}, "Zg": {32, 32, 16}, "w": {4, 4, 4},
}

// refusedCodes are codes of PEP 3118 that name what no shared memory can
// hold, with the reason ParseFormat gives.
var refusedCodes = map[string]string{
	"O": "Python object references ('O') are not plain data: they need reference counting that shared memory cannot do",
	"&": "pointers ('&') point outside the buffer: memview shares plain data only",
}
