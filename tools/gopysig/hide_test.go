package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHideRenamesWhatGopyCannotBind runs the hiding on a package of every kind
// of declaration it hides, and checks what it reports and what it writes: the
// declarations and every use renamed to unexported names, nothing else
// touched.
func TestHideRenamesWhatGopyCannotBind(t *testing.T) {
	dir := t.TempDir()
	report, err := hideIn(dir, []string{"./testdata/hideme"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range report.Hidden {
		names = append(names, h.Name)
	}
	want := []string{"hideme.Box", "hideme.Flags.None", "hideme.Holder.B", "hideme.Make", "hideme.Meters",
		"hideme.True"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("hidden %v, want %v", names, want)
	}
	if filepath.Dir(report.Overlay) != dir {
		t.Fatalf("overlay %q not under %q", report.Overlay, dir)
	}
	copies, _ := filepath.Glob(filepath.Join(dir, "*_hideme.go"))
	if len(copies) != 1 {
		t.Fatalf("copies %v", copies)
	}
	src, err := os.ReadFile(copies[0])
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for _, s := range []string{"type _Box[T any] struct", "func _Make(v int) _Box[int] { return _Box[int]{v} }",
		"type _Meters = float64", "func Double(m float64) float64 { return 2 * _Make(int(m)).V0() }",
		"func (b _Box[T]) V0()", "\t_B _Box[string]\n\tN int", "const _True = 1",
		"type Flags struct{ _None, Set int }"} {
		if !strings.Contains(text, s) {
			t.Errorf("the copy lacks %q:\n%s", s, text)
		}
	}
}

// TestApplyRefusesAStaleOffset: a rename must find its old name where the type
// checker saw it.
func TestApplyRefusesAStaleOffset(t *testing.T) {
	out, err := apply([]byte("type Box int"), []edit{{offset: 5, old: "Box", new: "_Box"}})
	if err != nil || string(out) != "type _Box int" {
		t.Fatalf("%q %v", out, err)
	}
	if _, err := apply([]byte("type Box int"), []edit{{offset: 4, old: "Box", new: "_Box"}}); err == nil {
		t.Fatal("a stale offset was applied")
	}
}
