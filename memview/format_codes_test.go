package memview

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The code table agrees with the basic dtypes: each one's format code holds
// its kind, in its item size.
func TestFormatCodesAgreeWithBasicDTypes(t *testing.T) {
	byCode := map[string]FormatCode{}
	for _, c := range FormatCodes() {
		byCode[c.Code] = c
	}
	require.Len(t, byCode, len(formatCodes))
	for _, d := range DTypes() {
		c, ok := byCode[d.Format()]
		require.True(t, ok, "%s: format %q is not in the table", d.Name(), d.Format())
		assert.Equal(t, string(d.Kind()), string(c.Kind), d.Name())
		assert.Equal(t, d.Itemsize(), c.NativeSize, d.Name())
	}
	for _, c := range FormatCodes() {
		assert.Contains(t, "biufcSUV", string(c.Kind), c.Code)
		assert.Positive(t, c.NativeSize, c.Code)
		if c.StdSize != 0 && c.Code != "l" && c.Code != "L" {
			assert.Equal(t, c.StdSize, c.NativeSize, "%s: only long's sizes differ", c.Code)
		}
	}
}

// The standard-size code of each number is the one code of its kind and size.
func TestStandardCodes(t *testing.T) {
	want := map[kindSize]string{
		{'b', 1}: "?", {'i', 1}: "b", {'i', 2}: "h", {'i', 4}: "i", {'i', 8}: "q",
		{'u', 1}: "B", {'u', 2}: "H", {'u', 4}: "I", {'u', 8}: "Q",
		{'f', 2}: "e", {'f', 4}: "f", {'f', 8}: "d", {'f', 16}: "g",
		{'c', 4}: "Ze", {'c', 8}: "Zf", {'c', 16}: "Zd", {'c', 32}: "Zg",
	}
	assert.Equal(t, want, stdCodes)
	assert.Equal(t, "", standardCode('i', 3))
	assert.Equal(t, byte('c'), fieldKind("Zd"))
	assert.Equal(t, byte(0), fieldKind("s"))
}
