package main

import (
	"encoding/json"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestUnaliasSpellsOutEveryAlias rewrites a package that uses aliases wherever
// an exported API can, and type-checks the overlay: it must compile, and
// gopy must meet no alias in the exported API but where the alias names what
// the package cannot write (an unexported type of another package).
func TestUnaliasSpellsOutEveryAlias(t *testing.T) {
	dir := t.TempDir()
	report, err := hideIn(dir, []string{"./testdata/aliases"})
	if err != nil {
		t.Fatal(err)
	}
	pkg := loadOverlay(t, report.Overlay, "./testdata/aliases")
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		var check []types.Type
		switch obj := obj.(type) {
		case *types.Func, *types.Var, *types.Const:
			check = append(check, obj.Type())
		case *types.TypeName:
			if obj.IsAlias() {
				t.Errorf("alias %s is still exported", name)
				continue
			}
			u := obj.Type().Underlying()
			if st, ok := u.(*types.Struct); ok {
				for i := range st.NumFields() {
					if st.Field(i).Exported() {
						check = append(check, st.Field(i).Type())
					}
				}
			} else {
				check = append(check, u)
			}
		}
		for _, typ := range check {
			if got := hasAlias(typ, map[types.Type]bool{}); got != (name == "Open") {
				t.Errorf("%s: %s, alias in it: %v", name, typ, got)
			}
		}
	}
	text := readCopies(t, dir)
	for _, s := range []string{
		"func Warmer(c float64) float64 { return hidden(c) + 1 }",
		"func Mean(ts []float64) float64 {\n\tvar s _Celsius",
		"package aliases; import (time_ \"time\")",
		"func Twice(s time_.Duration) time_.Duration",
		"func Keys(s map[string]struct{}) []string",
		"func Norm(p *struct{ X float64 \"json:\\\"x\\\"\"; Y float64 }) float64",
		"func Apply(h func(t float64, n ...int) (float64, error)) float64",
		"func Drain(c chan (<-chan float64)) int",
		"func Describe(v interface{}) string",
		"func Open(s dep.Secret) int",
		"\tAt   time_.Duration\n\tVals map[string][]float64\n\t_Temps\n",
		"Next() (float64, error)",
		"type Scale []float64",
		"var Threshold float64 = _Celsius(3)",
		"const Limit float64 = 9",
		"\tStep float64 = iota + 1\n\tStride\n\tUnit float64 = _Celsius(1)\n",
		"var Wait, Again time.Duration = _Span(1), _Span(2)",
		"func hidden(c _Celsius) _Celsius",
		"\t_ \"github.com/memview/memview/tools/gopysig/testdata/aliasdep\"\n\t_ \"github.com",
		"func FromDep(v []int) int",
		"func FromDot(v []int) int",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the copies lack %q", s)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// loadOverlay type-checks the package at path with the overlay a hide wrote.
func loadOverlay(t *testing.T, overlayPath, path string) *packages.Package {
	t.Helper()
	data, err := os.ReadFile(overlayPath)
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &overlay); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for from, to := range overlay.Replace {
		if files[from], err = os.ReadFile(to); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax |
		packages.NeedTypesInfo | packages.NeedImports, Overlay: files}
	pkgs, err := packages.Load(cfg, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("%d packages", len(pkgs))
	}
	for _, e := range pkgs[0].Errors {
		t.Errorf("the overlay does not compile: %v", e)
	}
	if t.Failed() {
		t.FailNow()
	}
	return pkgs[0]
}

func readCopies(t *testing.T, dir string) string {
	t.Helper()
	copies, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(copies) == 0 {
		t.Fatalf("no copies in %s (%v)", dir, err)
	}
	var b strings.Builder
	for _, c := range copies {
		src, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	return b.String()
}
