package generators

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const readme = "../../clients/README.md"

func readReadme(t *testing.T) *Readme {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Parse(string(b))
	if err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	return rd
}

func TestParse(t *testing.T) {
	text := "# Title\n" +
		"<!-- file: docs/x.txt -->\n```text\nshown\n```\n" +
		"<!-- output -->\n```text\none\ntwo\n```\n" +
		"## First\n<!-- recipe: a -->\nProse.\n\n" +
		"<!-- file: package.json -->\n```json\n{}\n```\n" +
		"```sh\nnpm install\n\nnode main.js\n```\n" +
		"## Second\n<!-- recipe: b -->\n<!-- file: package.json from: a -->\n" +
		"- a list item\n\n  ```sh\n  an indented block\n  ```\n" +
		"```sh\n# a comment, not a heading\nnpx tsc\n```\n" +
		"## Other\n```ts\nignored outside recipes\n```\n"
	rd, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"docs/x.txt": "shown\n"}; !reflect.DeepEqual(rd.Shown, want) {
		t.Errorf("Shown = %q, want %q", rd.Shown, want)
	}
	if want := []string{"one", "two"}; !slices.Equal(rd.Output, want) {
		t.Errorf("Output = %q, want %q", rd.Output, want)
	}
	want := []Recipe{
		{Name: "a", Line: 12, Steps: []Step{{Line: 16, File: "package.json", Text: "{}\n"}, {Line: 19, Text: "npm install\n\nnode main.js\n"}}},
		{Name: "b", Line: 25, Steps: []Step{
			{Line: 26, File: "package.json", Text: "{}\n"},
			{Line: 29, Text: "an indented block\n"},
			{Line: 32, Text: "# a comment, not a heading\nnpx tsc\n"},
		}},
	}
	if !reflect.DeepEqual(rd.Recipes, want) {
		t.Errorf("Recipes =\n%+v\nwant\n%+v", rd.Recipes, want)
	}
	if got := rd.Recipe("a").Commands(); !slices.Equal(got, []string{"npm install", "node main.js"}) {
		t.Errorf("Commands = %q", got)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, text := range []string{
		"<!-- recipe: a -->\n```ts\nneither a file nor commands\n```\n",
		"<!-- recipe: a -->\n<!-- file: x.ts -->\nprose between\n```ts\n```\n",
		"<!-- recipe: a -->\n<!-- file: ../x.ts -->\n```ts\n```\n",
		"<!-- recipe: a -->\n<!-- file: /x.ts -->\n```ts\n```\n",
		"<!-- recipe: a -->\n<!-- file: x.ts -->\n```ts\n```\n<!-- file: x.ts -->\n```ts\n```\n",
		"<!-- recipe: a -->\n<!-- file: x.ts from: b -->\n",
		"<!-- recipe: a -->\n```sh\n```\n<!-- recipe: b -->\n<!-- file: x.ts from: a -->\n",
		"<!-- recipe: a -->\n<!-- recipe: a -->\n",
		"<!-- recipe: a -->\n```sh\nnot closed\n",
		"<!-- output -->\n",
		"<!-- output -->\n```text\na\n```\n<!-- output -->\n```text\nb\n```\n",
	} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) took it", text)
		}
	}
}

// The README's recipes: each ends with its program run, pins what it installs, its npm and pip packages have the
// lock the test installs, its Maven artifacts exact versions, and a jar it runs is checked first.
func TestReadmeRecipes(t *testing.T) {
	rd := readReadme(t)
	if len(rd.Recipes) < 9 {
		t.Errorf("%s: %d recipes, want the nine generators' at least", readme, len(rd.Recipes))
	}
	if len(rd.Output) == 0 {
		t.Errorf("%s: no <!-- output --> block", readme)
	}
	exact := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	goGet := regexp.MustCompile(`^go (get|install)\b(.*)$`)
	goVersion := regexp.MustCompile(`^[\w./-]+@v\d+\.\d+\.\d+$`)
	npx := regexp.MustCompile(`^npx (\S+)`)
	for _, r := range rd.Recipes {
		if len(r.Steps) == 0 || r.Steps[len(r.Steps)-1].File != "" {
			t.Errorf("recipe %s (line %d) does not end with commands", r.Name, r.Line)
			continue
		}
		pkgText, npm := r.File("package.json")
		var bins []string
		if npm {
			bins = checkLock(t, r.Name, pkgText, exact)
		}
		in, python := r.File("requirements.in")
		if python {
			if lock, err := os.ReadFile(filepath.Join(r.Name, "requirements.txt")); err != nil {
				t.Errorf("recipe %s: %v", r.Name, err)
			} else if p := CheckLock(in, string(lock)); p != nil {
				t.Errorf("recipe %s: %s/requirements.txt is not the lock of its requirements.in (go run ./tools/generators/run "+
					"-update-locks %s): %s", r.Name, r.Name, r.Name, strings.Join(p, "; "))
			}
		}
		if pom, ok := r.File("pom.xml"); ok {
			checkPom(t, r.Name, pom, exact)
		}
		var checked []string // files sha256sum -c has checked
		for _, c := range r.Commands() {
			if strings.HasPrefix(c, "pip install") && (c != "pip install --require-hashes -r requirements.txt" || !python) {
				t.Errorf("recipe %s: %q: the packages belong in requirements.in, whose lock the test installs with "+
					"pip install --require-hashes -r requirements.txt", r.Name, c)
			}
			if m := artifact.FindStringSubmatch(c); m != nil && !exact.MatchString(m[1]) {
				t.Errorf("recipe %s: %q: the artifact's version %q is not exact", r.Name, c, m[1])
			}
			if m := sha256Check.FindStringSubmatch(c); m != nil {
				sums, _ := r.File(m[1])
				for _, l := range strings.Split(sums, "\n") {
					if f := strings.Fields(l); len(f) == 2 && len(f[0]) == 64 {
						checked = append(checked, f[1])
					}
				}
			}
			if m := javaJar.FindStringSubmatch(c); m != nil && !slices.Contains(checked, m[1]) {
				t.Errorf("recipe %s: %q: no sha256sum -c before it checks %s", r.Name, c, m[1])
			}
			if m := goGet.FindStringSubmatch(c); m != nil {
				for _, arg := range strings.Fields(m[2]) {
					if !strings.HasPrefix(arg, "-") && !goVersion.MatchString(arg) {
						t.Errorf("recipe %s: %q: %s is not pinned to a version", r.Name, c, arg)
					}
				}
			}
			if strings.HasPrefix(c, "npm install") && c != "npm install" {
				t.Errorf("recipe %s: %q: the packages belong in package.json, whose lock the test installs", r.Name, c)
			}
			if m := npx.FindStringSubmatch(c); m != nil && !slices.Contains(bins, m[1]) {
				t.Errorf("recipe %s: %q: %s is no command of a package.json dependency (%v); npx would fetch its latest version",
					r.Name, c, m[1], bins)
			}
		}
	}

	// Each directory here is a recipe's.
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "run" && rd.Recipe(e.Name()) == nil {
			t.Errorf("%s is no recipe's of %s", e.Name(), readme)
		}
	}
}

var (
	artifact    = regexp.MustCompile(`-Dartifact=[\w.-]+:[\w.-]+:(\S+)`)
	sha256Check = regexp.MustCompile(`^sha256sum -c (\S+)$`)
	javaJar     = regexp.MustCompile(`^java -jar (\S+)`)
)

// checkPom checks that a recipe's pom.xml names each dependency and plugin at an exact version.
func checkPom(t *testing.T, name, text string, exact *regexp.Regexp) {
	t.Helper()
	type artifact struct {
		GroupID    string `xml:"groupId"`
		ArtifactID string `xml:"artifactId"`
		Version    string `xml:"version"`
	}
	var pom struct {
		Dependencies []artifact `xml:"dependencies>dependency"`
		Plugins      []artifact `xml:"build>plugins>plugin"`
	}
	if err := xml.Unmarshal([]byte(text), &pom); err != nil {
		t.Errorf("recipe %s: pom.xml: %v", name, err)
		return
	}
	if len(pom.Dependencies) == 0 || len(pom.Plugins) == 0 {
		t.Errorf("recipe %s: pom.xml names %d dependencies and %d plugins", name, len(pom.Dependencies), len(pom.Plugins))
	}
	for _, a := range append(pom.Dependencies, pom.Plugins...) {
		if !exact.MatchString(a.Version) {
			t.Errorf("recipe %s: pom.xml: %s:%s %q is not an exact version", name, a.GroupID, a.ArtifactID, a.Version)
		}
	}
}

// checkLock checks that the recipe's package.json pins exact versions and that tools/generators/NAME/package-lock.json
// is its lock; it returns the commands the dependencies install.
func checkLock(t *testing.T, name, pkgText string, exact *regexp.Regexp) []string {
	t.Helper()
	type manifest struct {
		Name            string
		Dependencies    map[string]string
		DevDependencies map[string]string
	}
	var pkg manifest
	if err := json.Unmarshal([]byte(pkgText), &pkg); err != nil {
		t.Errorf("recipe %s: package.json: %v", name, err)
		return nil
	}
	if pkg.Name == "" {
		t.Errorf("recipe %s: package.json has no name (npm would write the directory's into the lock)", name)
	}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for dep, v := range deps {
			if !exact.MatchString(v) {
				t.Errorf("recipe %s: package.json: %s %q is not an exact version", name, dep, v)
			}
		}
	}
	lockPath := filepath.Join(name, "package-lock.json")
	b, err := os.ReadFile(lockPath)
	if err != nil {
		t.Errorf("recipe %s: %v", name, err)
		return nil
	}
	var lock struct {
		Packages map[string]struct {
			manifest
			Version string
			Bin     map[string]string
		}
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatalf("%s: %v", lockPath, err)
	}
	if root := lock.Packages[""].manifest; !reflect.DeepEqual(root, pkg) {
		t.Errorf("%s is the lock of %+v, the README's package.json is %+v: go run ./tools/generators/run -update-locks %s",
			lockPath, root, pkg, name)
	}
	var bins []string
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for dep, v := range deps {
			p := lock.Packages["node_modules/"+dep]
			if p.Version != v {
				t.Errorf("%s: %s %s, package.json says %s", lockPath, dep, p.Version, v)
			}
			for bin := range p.Bin {
				bins = append(bins, bin)
			}
		}
	}
	slices.Sort(bins)
	return bins
}

// A repository file shown outside the recipes is shown as it is.
func TestReadmeShowsRepositoryFiles(t *testing.T) {
	rd := readReadme(t)
	if len(rd.Shown) == 0 {
		t.Errorf("%s shows no repository file", readme)
	}
	for path, text := range rd.Shown {
		b, err := os.ReadFile(filepath.Join("../..", path))
		if err != nil {
			t.Errorf("%s shows %s: %v", readme, path, err)
			continue
		}
		if string(b) != text {
			t.Errorf("%s shows %s other than it is: copy the file into the README block", readme, path)
		}
	}
}
