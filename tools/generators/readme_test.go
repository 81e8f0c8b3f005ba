// Package generators pins clients/README.md to the generator recipes that make test-generators runs
// (tools/generators/*, see run.sh): each recipe file shown in the README as it is, each generation command shown
// as the test runs it, and every recipe at most 25 lines.
package generators

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	readme = "../../clients/README.md"
	// maxRecipeLines bounds a recipe; a Go file's package clause and imports are not counted.
	maxRecipeLines = 25
)

// recipeNames are the files of a generator directory that a user of that generator adds (configuration
// included); the rest of the directory is the check.
var recipeNames = []string{"recipe.ts", "envelope.go", "openapi-ts.config.mjs", "orval.config.mjs", "cfg.yaml"}

// shownFiles maps each `<!-- file: PATH -->` marker of the README (PATH from the repository root) to the fenced
// block that follows it.
func shownFiles(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?m)^<!-- file: (\\S+) -->\n```[a-z]*\n((?s:.*?))^```\n")
	shown := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		if _, dup := shown[m[1]]; dup {
			t.Errorf("%s: %s shown twice", readme, m[1])
		}
		shown[m[1]] = m[2]
	}
	if len(shown) == 0 {
		t.Fatalf("%s: no `<!-- file: PATH -->` block", readme)
	}
	return shown
}

// generatorDirs are the directories here holding a package.json or a go.mod, but common (the TypeScript checks'
// shared scenario).
func generatorDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "common" {
			continue
		}
		for _, f := range []string{"package.json", "go.mod"} {
			if _, err := os.Stat(filepath.Join(e.Name(), f)); err == nil {
				dirs = append(dirs, e.Name())
				break
			}
		}
	}
	return dirs
}

func TestReadmeShowsEachRecipeAsTheTestRunsIt(t *testing.T) {
	shown := shownFiles(t)
	for path, text := range shown {
		b, err := os.ReadFile(filepath.Join("../..", path))
		if err != nil {
			t.Errorf("%s shows %s: %v", readme, path, err)
			continue
		}
		if string(b) != text {
			t.Errorf("%s shows %s other than it is: copy the file into the README block", readme, path)
		}
	}

	dirs := generatorDirs(t)
	if len(dirs) != 6 {
		t.Errorf("generator directories %v, want the six of clients/README.md", dirs)
	}
	for _, dir := range dirs {
		var recipes []string
		for _, name := range recipeNames {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				recipes = append(recipes, name)
			}
		}
		if len(recipes) == 0 {
			t.Errorf("%s: no recipe file (%v)", dir, recipeNames)
		}
		for _, name := range recipes {
			path := filepath.Join(dir, name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := recipeLines(path, string(b)); n > maxRecipeLines {
				t.Errorf("%s: %d lines, more than %d", path, n, maxRecipeLines)
			}
			if _, ok := shown["tools/generators/"+dir+"/"+name]; ok {
				continue
			}
			// A file the README shows once for two generators must be the same in both.
			same := false
			for p, text := range shown {
				same = same || (filepath.Base(p) == name && text == string(b))
			}
			if !same {
				t.Errorf("%s does not show tools/generators/%s/%s", readme, dir, name)
			}
		}
	}
}

func TestReadmeShowsEachGenerationCommand(t *testing.T) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, dir := range generatorDirs(t) {
		var command string
		if p, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
			var pkg struct{ Scripts map[string]string }
			if err := json.Unmarshal(p, &pkg); err != nil {
				t.Fatalf("%s/package.json: %v", dir, err)
			}
			command = "npx " + pkg.Scripts["generate"]
		} else {
			m, err := os.ReadFile(filepath.Join(dir, "main.go"))
			if err != nil {
				t.Fatal(err)
			}
			g := regexp.MustCompile(`(?m)^//go:generate (.+)$`).FindStringSubmatch(string(m))
			if g == nil {
				t.Fatalf("%s/main.go: no //go:generate line", dir)
			}
			command = g[1]
		}
		if !slices.Contains(strings.Split(text, "\n"), command) {
			t.Errorf("%s: no line %q, the command %s runs", readme, command, dir)
		}
	}
}

func TestMakefileRunsEveryGenerator(t *testing.T) {
	b, err := os.ReadFile("../../mk/generators.mk")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^GENERATORS_(?:NPM|GO) :=(.*)$`).FindAllStringSubmatch(string(b), -1) {
		listed = append(listed, strings.Fields(m[1])...)
	}
	slices.Sort(listed)
	if dirs := generatorDirs(t); !slices.Equal(listed, dirs) {
		t.Errorf("mk/generators.mk runs %v, the directories are %v", listed, dirs)
	}
}

// recipeLines counts the lines of a recipe file, without a Go file's package clause and import block.
func recipeLines(path, text string) int {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if filepath.Ext(path) != ".go" {
		return len(lines)
	}
	n, inImport := 0, false
	for _, l := range lines {
		switch {
		case inImport:
			inImport = l != ")"
		case strings.HasPrefix(l, "package "), strings.HasPrefix(l, "import \""):
		case l == "import (":
			inImport = true
		default:
			n++
		}
	}
	return n
}
