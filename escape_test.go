package applypatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/afero"
)

// TestNoInternalTypeInAPI: the public API never shows a type of an internal package: no
// exported function, method, field, constant or variable of the facade takes, returns or
// holds one, so a host never meets a type it cannot name. It reads the package's export
// data as the compiler wrote it.
func TestNoInternalTypeInAPI(t *testing.T) {
	pkg := exportedPackage(t, module)
	seen := map[types.Type]bool{}
	for _, name := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		if tn, ok := obj.(*types.TypeName); ok {
			checkNamed(t, name, tn.Type(), seen)
			continue
		}
		checkType(t, name, obj.Type(), seen)
	}
}

// exportedPackage loads a package of this module from the export data go list builds.
func exportedPackage(t *testing.T, path string) *types.Package {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", path).Output()
	if err != nil {
		t.Skipf("go list -export: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	pkg, err := imp.Import(path)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// checkNamed checks a type of the facade: what it is built of where a host sees it
// (exported fields, interface methods) and its exported methods.
func checkNamed(t *testing.T, where string, typ types.Type, seen map[types.Type]bool) {
	t.Helper()
	if seen[typ] {
		return
	}
	seen[typ] = true
	checkType(t, where, typ.Underlying(), seen)
	for _, mset := range []*types.MethodSet{types.NewMethodSet(typ), types.NewMethodSet(types.NewPointer(typ))} {
		for m := range mset.Methods() {
			if m.Obj().Exported() {
				checkType(t, where+"."+m.Obj().Name(), m.Type(), seen)
			}
		}
	}
}

// checkType fails when typ, as a host sees it, names a type of an internal package.
func checkType(t *testing.T, where string, typ types.Type, seen map[types.Type]bool) {
	t.Helper()
	switch typ := typ.(type) {
	case *types.Named:
		if pkg := typ.Obj().Pkg(); pkg != nil && strings.Contains(pkg.Path(), "/internal/") {
			t.Errorf("%s shows the internal type %s", where, typ)
			return
		}
		if pkg := typ.Obj().Pkg(); pkg != nil && pkg.Path() == module {
			checkNamed(t, typ.Obj().Name(), typ, seen)
		}
		for arg := range typ.TypeArgs().Types() {
			checkType(t, where, arg, seen)
		}
	case *types.Alias:
		checkType(t, where, types.Unalias(typ), seen)
	case *types.Pointer:
		checkType(t, where, typ.Elem(), seen)
	case *types.Slice:
		checkType(t, where, typ.Elem(), seen)
	case *types.Array:
		checkType(t, where, typ.Elem(), seen)
	case *types.Map:
		checkType(t, where, typ.Key(), seen)
		checkType(t, where, typ.Elem(), seen)
	case *types.Chan:
		checkType(t, where, typ.Elem(), seen)
	case *types.Signature:
		for v := range typ.Params().Variables() {
			checkType(t, where, v.Type(), seen)
		}
		for v := range typ.Results().Variables() {
			checkType(t, where, v.Type(), seen)
		}
	case *types.Struct:
		for f := range typ.Fields() {
			if f.Exported() {
				checkType(t, where+"."+f.Name(), f.Type(), seen)
			}
		}
	case *types.Interface:
		for m := range typ.Methods() {
			if m.Exported() {
				checkType(t, where+"."+m.Name(), m.Type(), seen)
			}
		}
	}
}

// internalFact returns the name of the first error in err's tree whose type is an
// exported type of an internal package (a fact the facade should have worded as a
// public error), or "". Unexported wrappers, like those of fmt, are opaque and allowed.
func internalFact(err error) string {
	if err == nil {
		return ""
	}
	typ := reflect.TypeOf(err)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if strings.Contains(typ.PkgPath(), "/internal/") && typ.Name() != "" && token.IsExported(typ.Name()) {
		return reflect.TypeOf(err).String()
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return internalFact(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if name := internalFact(e); name != "" {
				return name
			}
		}
	}
	return ""
}

// TestNoInternalErrorEscapes: every error the facade returns is made of public error
// types (and opaque wrappers): over every payload of the behaviour tests, applied in
// memory to the files its archive holds, and over a commit failed at each of its
// filesystem operations in turn, no fact of an internal package is left in an error's
// tree.
func TestNoInternalErrorEscapes(t *testing.T) {
	archives, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(archives) == 0 {
		t.Fatalf("no behaviour tests found: %v", err)
	}
	errs := 0
	check := func(label string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		errs++
		if name := internalFact(err); name != "" {
			t.Errorf("%s: the error holds the internal %s: %v", label, name, err)
		}
	}
	ctx := context.Background()
	for _, name := range archives {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if !strings.Contains(string(f.Data), "*** Begin Patch") {
				continue
			}
			fsys := afero.NewMemMapFs()
			for _, g := range ar.Files {
				if err := afero.WriteFile(fsys, filepath.Join("/w", g.Name), g.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, mode := range []applypatch.Mode{applypatch.ModeEdits, applypatch.ModeFullAuto} {
				opts := &applypatch.Options{Workspace: "/w", Mode: mode}
				_, err := applypatch.Check(ctx, fsys, string(f.Data), opts)
				check(name+" "+f.Name+" check", err)
				_, err = applypatch.Apply(ctx, fsys, string(f.Data), opts)
				check(name+" "+f.Name+" apply", err)
			}
		}
	}
	for k := 1; k <= 60; k++ {
		base := afero.NewMemMapFs()
		writeFixture(t, base, "/w", matrixFiles)
		ffs := faultfs.New(base, faultfs.CountReads(), faultfs.FailAt(k))
		pr, err := applypatch.Resolve(ctx, ffs, mustParse(t, matrixPayload), &applypatch.Options{Workspace: "/w", Mode: applypatch.ModeEdits})
		check(fmt.Sprintf("fault at operation %d, resolve", k), err)
		if err == nil {
			_, err = applypatch.Commit(ctx, pr)
			check(fmt.Sprintf("fault at operation %d, commit", k), err)
		}
	}
	if errs < 100 {
		t.Errorf("only %d errors were checked: the corpus no longer refuses much", errs)
	}
}
