package deploycheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The release image stamps version, commit and date into
// internal/buildinfo. The linker ignores an -X flag naming a variable that
// does not exist, so a rename would silently ship "dev": every -X in the
// Dockerfile must name a string variable of that package, and all three
// must be stamped.
func TestDockerfile_StampsTheBuildInfo(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/gatehouse/gatehouse/internal/buildinfo"
	stamped := map[string]bool{}
	for _, m := range regexp.MustCompile(`-X `+regexp.QuoteMeta(pkg)+`\.(\w+)=`).FindAllStringSubmatch(string(raw), -1) {
		stamped[m[1]] = true
	}
	declared := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repoRoot(t), "internal", "buildinfo", "buildinfo.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					declared[n.Name] = true
				}
			}
		}
	}
	for _, name := range []string{"version", "commit", "date"} {
		if !stamped[name] {
			t.Errorf("the Dockerfile does not stamp buildinfo.%s", name)
		}
	}
	for name := range stamped {
		if !declared[name] {
			t.Errorf("the Dockerfile stamps buildinfo.%s, which buildinfo.go does not declare", name)
		}
	}
}
