package cuda

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// kernelSource is kernels.ptx: a module header and one entry template.
//
//go:embed kernels.ptx
var kernelSource string

// A kernel of memview's module, by its entry name.
type kernel int

// The kernels, in the order of kernelNames.
const (
	kCopy1 kernel = iota
	kCopy2
	kCopy4
	kCopy8
	kCopy16
	kFill1
	kFill2
	kFill4
	kFill8
	kFill16
	kFillBytes
	numKernels
)

var kernelNames = [numKernels]string{
	"memview_copy_u1", "memview_copy_u2", "memview_copy_u4", "memview_copy_u8", "memview_copy_u16",
	"memview_fill_u1", "memview_fill_u2", "memview_fill_u4", "memview_fill_u8", "memview_fill_u16",
	"memview_fill_bytes",
}

func (k kernel) String() string { return kernelNames[k] }

// unitKernel returns the copy (or fill) kernel for units of width bytes.
func unitKernel(fill bool, width int) kernel {
	base := kCopy1
	if fill {
		base = kFill1
	}
	switch width {
	case 1:
		return base
	case 2:
		return base + 1
	case 4:
		return base + 2
	case 8:
		return base + 3
	}
	return base + 4
}

// The per-kernel parts of the template: what each thread loads once (@LOAD@)
// and how one element moves (@MOVE@: %rd21 is the destination address, %rd22
// the source's).
var kernelParts = [numKernels][2]string{
	kCopy1:  {"", "ld.global.u8 %rs1, [%rd22];\n\tst.global.u8 [%rd21], %rs1;"},
	kCopy2:  {"", "ld.global.u16 %rs1, [%rd22];\n\tst.global.u16 [%rd21], %rs1;"},
	kCopy4:  {"", "ld.global.u32 %r7, [%rd22];\n\tst.global.u32 [%rd21], %r7;"},
	kCopy8:  {"", "ld.global.u64 %rd24, [%rd22];\n\tst.global.u64 [%rd21], %rd24;"},
	kCopy16: {"", "ld.global.v2.u64 {%rd24, %rd25}, [%rd22];\n\tst.global.v2.u64 [%rd21], {%rd24, %rd25};"},
	kFill1:  {"ld.param.u8 %rs1, [args+56];", "st.global.u8 [%rd21], %rs1;"},
	kFill2:  {"ld.param.u16 %rs1, [args+56];", "st.global.u16 [%rd21], %rs1;"},
	kFill4:  {"ld.param.u32 %r7, [args+56];", "st.global.u32 [%rd21], %r7;"},
	kFill8:  {"ld.param.u64 %rd24, [args+56];", "st.global.u64 [%rd21], %rd24;"},
	kFill16: {"ld.param.v2.u64 {%rd24, %rd25}, [args+56];", "st.global.v2.u64 [%rd21], {%rd24, %rd25};"},
	// One item of args.itemsize bytes, byte by byte from args.value.
	kFillBytes: {"ld.param.u32 %r8, [args+52];", `mov.u32 %r3, 0;
BYTE:
	setp.ge.u32 %p3, %r3, %r8;
	@%p3 bra BYTEDONE;
	cvt.u64.u32 %rd27, %r3;
	add.u64 %rd28, %rd26, %rd27;
	ld.param.u8 %rs1, [%rd28+56];
	add.u64 %rd29, %rd21, %rd27;
	st.global.u8 [%rd29], %rs1;
	add.u32 %r3, %r3, 1;
	bra BYTE;
BYTEDONE:`},
}

var (
	moduleOnce sync.Once
	moduleText string
)

// kernelModule returns the PTX module: the header of kernels.ptx and the
// template expanded for every kernel, NUL-terminated as cuModuleLoadData
// wants text.
func kernelModule() string {
	moduleOnce.Do(func() {
		head, rest, ok1 := strings.Cut(kernelSource, "// @entry\n")
		entry, _, ok2 := strings.Cut(rest, "// @end\n")
		if !ok1 || !ok2 {
			panic("cuda: kernels.ptx lacks its // @entry ... // @end template")
		}
		var b strings.Builder
		b.WriteString(head)
		for k := range numKernels {
			e := strings.ReplaceAll(entry, "@NAME@", k.String())
			e = strings.ReplaceAll(e, "@LOAD@", "\t"+kernelParts[k][0])
			e = strings.ReplaceAll(e, "@MOVE@", "\t"+kernelParts[k][1])
			fmt.Fprintf(&b, "\n%s", e)
		}
		b.WriteByte(0)
		moduleText = b.String()
	})
	return moduleText
}
