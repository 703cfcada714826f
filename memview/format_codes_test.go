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
