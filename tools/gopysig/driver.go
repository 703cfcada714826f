package main

// The package driver that shows gopy the packages through the overlay.
//
// gopy reads packages with golang.org/x/tools/go/packages, which type-checks
// them from the files `go list` names; a build overlay in GOFLAGS changes what
// `go list` compiles but not the files it names, so gopy would still read the
// originals. go/packages asks an external driver instead when GOPACKAGESDRIVER
// names one: gopyext.py points it at this binary under the name
// gopackagesdriver, with MEMVIEW_GOPY_OVERLAY naming the overlay that
// `gopysig -hide` wrote. The driver lists the packages with the overlay applied
// (so cgo's output and export data reflect it too) and names the rewritten
// copies as the files to compile; GoFiles stay the originals, where gopy reads
// the documentation.

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// driverName is the name this binary answers to as a package driver.
const driverName = "gopackagesdriver"

// runDriver answers one go/packages driver request (on stdin) for patterns.
func runDriver(overlayPath string, patterns []string) error {
	var req packages.DriverRequest
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	data, err := os.ReadFile(overlayPath)
	if err != nil {
		return err
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &overlay); err != nil {
		return fmt.Errorf("%s: %w", overlayPath, err)
	}
	// Metadata only, for the whole graph; export data where go/packages will
	// read types from it (types without dependencies' sources).
	mode := req.Mode&^(packages.NeedTypes|packages.NeedSyntax|packages.NeedTypesInfo|packages.NeedTypesSizes) |
		packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports | packages.NeedDeps
	if req.Mode&packages.NeedTypes != 0 && req.Mode&packages.NeedDeps == 0 {
		mode |= packages.NeedExportFile
	}
	env := append(append([]string{}, req.Env...), "GOPACKAGESDRIVER=off")
	if len(req.Env) == 0 {
		env = append(os.Environ(), "GOPACKAGESDRIVER=off")
	}
	flags, err := goOverlay(env, overlayPath, overlay.Replace)
	if err != nil {
		return err
	}
	cfg := &packages.Config{
		Mode:       mode,
		Env:        env,
		BuildFlags: append(append([]string{}, req.BuildFlags...), flags...),
		Tests:      req.Tests,
	}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return err
	}
	resp := packages.DriverResponse{Compiler: "gc", Arch: runtime.GOARCH}
	byPath := map[string]*packages.Package{}
	packages.Visit(roots, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	seen := map[string]bool{}
	var visit func(p *packages.Package) error
	visit = func(p *packages.Package) error {
		if seen[p.ID] {
			return nil
		}
		seen[p.ID] = true
		for i, f := range p.CompiledGoFiles {
			if to, ok := overlay.Replace[f]; ok {
				p.CompiledGoFiles[i] = to
				if err := addImports(p, to, byPath); err != nil {
					return err
				}
			}
		}
		resp.Packages = append(resp.Packages, p)
		for _, imp := range p.Imports {
			if err := visit(imp); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range roots {
		resp.Roots = append(resp.Roots, p.ID)
		if err := visit(p); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(os.Stdout)
	return enc.Encode(resp)
}

// addImports adds to p's imports those the rewritten copy imports that the go
// command did not see (a copy of a file in the module cache, which it reads as
// written: unalias.go may import the package an alias names). Each is in the
// graph already, a dependency of the package that declares the alias.
func addImports(p *packages.Package, copyPath string, byPath map[string]*packages.Package) error {
	f, err := parser.ParseFile(token.NewFileSet(), copyPath, nil, parser.ImportsOnly)
	if err != nil {
		return err
	}
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path == "C" {
			continue
		}
		if _, ok := p.Imports[path]; ok {
			continue
		}
		dep, ok := byPath[path]
		if !ok {
			return fmt.Errorf("%s: %s imports %s, which is not among its dependencies", p.PkgPath, copyPath, path)
		}
		if p.Imports == nil {
			p.Imports = map[string]*packages.Package{}
		}
		p.Imports[path] = dep
	}
	return nil
}

// goOverlay returns the build flag that hands the go command the overlay, for
// cgo's output and export data. The go command refuses to replace files in the
// module cache (a package built straight from there): those are left out of
// what it is handed (written next to the overlay), and only named as the files
// to compile.
func goOverlay(env []string, overlayPath string, replace map[string]string) ([]string, error) {
	cmd := exec.Command("go", "env", "GOMODCACHE")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	cache := strings.TrimSpace(string(out))
	kept := map[string]string{}
	for from, to := range replace {
		if cache == "" || !strings.HasPrefix(from, cache+string(filepath.Separator)) {
			kept[from] = to
		}
	}
	if len(kept) == len(replace) {
		return []string{"-overlay=" + overlayPath}, nil
	}
	if len(kept) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(map[string]any{"Replace": kept})
	if err != nil {
		return nil, err
	}
	path := strings.TrimSuffix(overlayPath, ".json") + "-go.json"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	return []string{"-overlay=" + path}, nil
}
