package portalapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// libraries are the directories whose packages programs embed: they leave
// the embedding program's process alone and rest on nothing under
// internal/, which only this module's commands and tests may use.
var libraries = []string{"server", "emulator", "portaltest", "client", "conformance", "wire", "gen"}

// processWide are the calls that change the settings of the whole process
// (package path, function).
var processWide = map[[2]string]bool{
	{"runtime", "GOMAXPROCS"}:           true,
	{"runtime/debug", "SetGCPercent"}:   true,
	{"runtime/debug", "SetMemoryLimit"}: true,
	{"runtime/debug", "SetMaxThreads"}:  true,
	{"runtime/debug", "SetMaxStack"}:    true,
	{"os/signal", "Notify"}:             true,
	{"os/signal", "NotifyContext"}:      true,
	{"os/signal", "Ignore"}:             true,
	{"os", "Setenv"}:                    true,
	{"log/slog", "SetDefault"}:          true,
	{"log", "SetOutput"}:                true,
}

// goFiles parses the non-test Go files under dir.
func goFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// calls reports the process-wide calls of f, by the package path its
// imports name and the function; a GOMAXPROCS(0), which only reads, is left
// out.
func calls(f *ast.File, visit func(pkg, fn string, at token.Pos)) {
	names := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || names[id.Name] == "" {
			return true
		}
		if sel.Sel.Name == "GOMAXPROCS" && len(call.Args) == 1 {
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Value == "0" {
				return true
			}
		}
		visit(names[id.Name], sel.Sel.Name, call.Pos())
		return true
	})
}

// The libraries import nothing under internal/ and change nothing of the
// process that embeds them; no code of this module sets GOMAXPROCS.
func TestLibrariesLeaveTheProcessAlone(t *testing.T) {
	for _, dir := range libraries {
		for path, f := range goFiles(t, dir) {
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); strings.Contains(p+"/", "/internal/") && strings.HasPrefix(p, "github.com/orgportal/portal-api/") {
					t.Errorf("%s imports %s: a library must not rest on internal/", path, p)
				}
			}
			calls(f, func(pkg, fn string, _ token.Pos) {
				if processWide[[2]string{pkg, fn}] {
					t.Errorf("%s calls %s.%s, which changes the embedding program's process", path, pkg, fn)
				}
			})
		}
	}
	for path, f := range goFiles(t, ".") {
		calls(f, func(pkg, fn string, _ token.Pos) {
			if pkg == "runtime" && fn == "GOMAXPROCS" {
				t.Errorf("%s sets GOMAXPROCS: the runtime sizes it itself, following the container's CPU limit, and stops once it is set", path)
			}
		})
	}
}
