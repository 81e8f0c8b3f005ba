// Package generators reads the generator recipes of clients/README.md, so that the test that runs them
// (tools/generators/run, `make test-generators`) runs the README's own text and nothing beside it.
//
// A recipe starts at a `<!-- recipe: NAME -->` line and ends at the next heading or recipe. In it, every fenced
// block is either a file, announced by a `<!-- file: PATH -->` line just before it, or shell commands (a `sh`
// block); a `<!-- file: PATH from: RECIPE -->` line stands for the file of that name shown in an earlier recipe.
// One `<!-- output -->` block says what every recipe's program prints. Outside recipes, a `<!-- file: PATH -->`
// block shows a file of this repository as it is.
package generators

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Readme is what clients/README.md holds for the generator test.
type Readme struct {
	Recipes []Recipe
	// Output holds the lines every recipe's program prints, in order.
	Output []string
	// Shown maps each repository file shown outside the recipes (its path from the repository root) to the
	// text shown.
	Shown map[string]string
}

// Recipe is one generator's recipe: its steps in the order the README shows them.
type Recipe struct {
	// Name is the marker's; tools/generators/NAME holds what the test keeps for the recipe (its lockfile).
	Name  string
	Line  int
	Steps []Step
}

// Step is one fenced block of a recipe: a file to write, or commands to run, in the recipe's directory.
type Step struct {
	Line int
	// File is the path of the file to write, relative to the recipe's directory; empty for commands.
	File string
	// Text is the file's content, or the commands.
	Text string
}

// File returns the text of the recipe's file named name, and whether it has one.
func (r *Recipe) File(name string) (string, bool) {
	for _, s := range r.Steps {
		if s.File == name {
			return s.Text, true
		}
	}
	return "", false
}

// Commands returns the recipe's command lines, in order, blank lines left out.
func (r *Recipe) Commands() []string {
	var lines []string
	for _, s := range r.Steps {
		if s.File != "" {
			continue
		}
		for _, l := range strings.Split(s.Text, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

var (
	recipeMarker = regexp.MustCompile(`^<!-- recipe: ([a-z0-9-]+) -->$`)
	fileMarker   = regexp.MustCompile(`^<!-- file: (\S+)(?: from: ([a-z0-9-]+))? -->$`)
	outputMarker = "<!-- output -->"
)

// Parse reads the README's text. It fails on a block inside a recipe that would be neither written nor run, on
// a marker not followed by its block, and on a file that is not a plain relative path.
func Parse(text string) (*Readme, error) {
	rd := &Readme{Shown: map[string]string{}}
	lines := strings.Split(text, "\n")
	var (
		recipe  *Recipe
		pending string // the marker line waiting for its block
		pendAt  int
	)
	closeRecipe := func() {
		if recipe != nil {
			rd.Recipes = append(rd.Recipes, *recipe)
			recipe = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line, n := lines[i], i+1
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "```") {
			if pending != "" && trimmed != "" {
				return nil, fmt.Errorf("line %d: %s is not followed by a fenced block", pendAt, pending)
			}
			switch m, f := recipeMarker.FindStringSubmatch(line), fileMarker.FindStringSubmatch(line); {
			case m != nil:
				closeRecipe()
				if rd.Recipe(m[1]) != nil {
					return nil, fmt.Errorf("line %d: recipe %s given twice", n, m[1])
				}
				recipe = &Recipe{Name: m[1], Line: n}
			case strings.HasPrefix(line, "#"):
				closeRecipe()
			case f != nil && f[2] != "":
				if recipe == nil {
					return nil, fmt.Errorf("line %d: %s outside a recipe", n, line)
				}
				from := rd.Recipe(f[2])
				if from == nil {
					return nil, fmt.Errorf("line %d: %s names no earlier recipe", n, line)
				}
				text, ok := from.File(f[1])
				if !ok {
					return nil, fmt.Errorf("line %d: recipe %s shows no %s", n, f[2], f[1])
				}
				if _, dup := recipe.File(f[1]); dup {
					return nil, fmt.Errorf("line %d: recipe %s shows %s twice", n, recipe.Name, f[1])
				}
				recipe.Steps = append(recipe.Steps, Step{Line: n, File: f[1], Text: text})
			case f != nil, line == outputMarker:
				pending, pendAt = line, n
			}
			continue
		}

		// A fenced block: its text runs to the closing fence of the same indentation.
		indent, info := line[:len(line)-len(strings.TrimLeft(line, " "))], strings.TrimPrefix(trimmed, "```")
		start := i + 1
		for i++; i < len(lines) && lines[i] != indent+"```"; i++ {
		}
		if i == len(lines) {
			return nil, fmt.Errorf("line %d: the block is not closed", start)
		}
		body := lines[start:i]
		for j, l := range body {
			body[j] = strings.TrimPrefix(l, indent)
		}
		block := strings.Join(body, "\n") + "\n"

		marker := pending
		pending = ""
		switch f := fileMarker.FindStringSubmatch(marker); {
		case marker == outputMarker:
			if rd.Output != nil {
				return nil, fmt.Errorf("line %d: a second output block", start-1)
			}
			rd.Output = strings.Split(strings.TrimSuffix(block, "\n"), "\n")
		case f != nil && recipe == nil:
			rd.Shown[f[1]] = block
		case f != nil:
			if p := path.Clean(f[1]); p != f[1] || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
				return nil, fmt.Errorf("line %d: %s is not a plain relative path", pendAt, f[1])
			}
			if _, dup := recipe.File(f[1]); dup {
				return nil, fmt.Errorf("line %d: recipe %s shows %s twice", pendAt, recipe.Name, f[1])
			}
			recipe.Steps = append(recipe.Steps, Step{Line: start, File: f[1], Text: block})
		case recipe != nil && info == "sh":
			recipe.Steps = append(recipe.Steps, Step{Line: start, Text: block})
		case recipe != nil:
			return nil, fmt.Errorf("line %d: a %q block in recipe %s is neither a file (a `<!-- file: PATH -->` line before it) nor commands (sh)",
				start-1, info, recipe.Name)
		}
	}
	if pending != "" {
		return nil, fmt.Errorf("line %d: %s is not followed by a fenced block", pendAt, pending)
	}
	closeRecipe()
	return rd, nil
}

// Recipe returns the recipe named name, or nil.
func (rd *Readme) Recipe(name string) *Recipe {
	for i := range rd.Recipes {
		if rd.Recipes[i].Name == name {
			return &rd.Recipes[i]
		}
	}
	return nil
}
