package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestAddImportsNamesWhatTheCopyImports: a rewritten copy of a file in the
// module cache may import a package the go command did not see it import; the
// driver adds it from the graph, and fails when it is not there.
func TestAddImportsNamesWhatTheCopyImports(t *testing.T) {
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "0_a.go")
	src := "package a; import (time_ \"time\")\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n"
	if err := os.WriteFile(copyPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fmtPkg, timePkg := &packages.Package{ID: "fmt", PkgPath: "fmt"}, &packages.Package{ID: "time", PkgPath: "time"}
	p := &packages.Package{ID: "a", PkgPath: "example.com/a", Imports: map[string]*packages.Package{"fmt": fmtPkg}}
	if err := addImports(p, copyPath, map[string]*packages.Package{"fmt": fmtPkg, "time": timePkg}); err != nil {
		t.Fatal(err)
	}
	if p.Imports["time"] != timePkg || p.Imports["fmt"] != fmtPkg || len(p.Imports) != 2 {
		t.Fatalf("imports %v", p.Imports)
	}
	p.Imports = map[string]*packages.Package{"fmt": fmtPkg}
	err := addImports(p, copyPath, map[string]*packages.Package{"fmt": fmtPkg})
	if err == nil || !strings.Contains(err.Error(), "imports time, which is not among its dependencies") {
		t.Fatalf("error %v", err)
	}
}
