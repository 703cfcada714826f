package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NVIDIA's PTX assembler accepts the module for the oldest and a current GPU
// architecture, where it is installed (ptxas on PATH, or MEMVIEW_PTXAS naming
// it; pip's nvidia-cuda-nvcc-cu12 ships one). No CUDA toolkit is needed to
// build memview: this is a check for machines that have one.
func TestPTXAssembles(t *testing.T) {
	ptxas := os.Getenv("MEMVIEW_PTXAS")
	if ptxas == "" {
		var err error
		if ptxas, err = exec.LookPath("ptxas"); err != nil {
			t.Skip("no ptxas here (set MEMVIEW_PTXAS to check the PTX with NVIDIA's assembler)")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "kernels.ptx")
	if err := os.WriteFile(src, []byte(strings.TrimRight(kernelModule(), "\x00")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		out, err := exec.Command(ptxas, "-arch="+arch, "-o", filepath.Join(dir, arch+".cubin"), src).CombinedOutput()
		if err != nil {
			t.Fatalf("ptxas -arch=%s: %v\n%s", arch, err, out)
		}
	}
}
