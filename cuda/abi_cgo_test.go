//go:build cgo

package cuda

import "testing"

// kernel.go packs the argument block at the offsets cuda_abi.h declares (and
// the fake driver reads), and kernels.ptx reads it there too (the PTX offsets
// are checked by running it, in kernel_test.go).
func TestKernelArgsMatchTheABIHeader(t *testing.T) {
	want := [14]int{argDst, argSrc, argN0, argDs0, argSs0, argRows, argNOuter, argItemsize, argValue, argOuter,
		axisSize, maxOuter, maxValue, argsSize}
	if got := kernelArgsLayoutC(); got != want {
		t.Fatalf("cuda_abi.h says %v, kernel.go %v", got, want)
	}
}
