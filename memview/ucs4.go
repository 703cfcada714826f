package memview

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// getUCS4 reads the UCS-4 characters of e (code 'w', NumPy's str dtype) as a
// string, dropping trailing NULs as NumPy does; a code point that is not a
// valid rune reads as U+FFFD.
func getUCS4(o binary.ByteOrder, e []byte) string {
	var b strings.Builder
	for i := 0; i+4 <= len(e); i += 4 {
		r := rune(o.Uint32(e[i:]))
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), "\x00")
}

// putUCS4 writes s into e as UCS-4 characters padded with NULs, and reports
// whether it fits.
func putUCS4(o binary.ByteOrder, e []byte, s string) bool {
	if utf8.RuneCountInString(s)*4 > len(e) {
		return false
	}
	clear(e)
	i := 0
	for _, r := range s {
		o.PutUint32(e[i:], uint32(r))
		i += 4
	}
	return true
}
