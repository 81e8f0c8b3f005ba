package generators

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Requirement is one package of a pip requirements file.
type Requirement struct {
	// Spec is what follows the name: "==1.2.3", ">=2", or empty.
	Spec string
	// Hashes counts its --hash options.
	Hashes int
}

var (
	requirementLine = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*([=<>!~][^;\s]*)?`)
	nameSeparators  = regexp.MustCompile(`[-_.]+`)
	exactVersion    = regexp.MustCompile(`^==\d+(\.\d+)*([a-z]+\d+)?(\.post\d+)?$`)
)

// packageName is a package's name as pip compares names: lower case, runs of "-", "_" and "." as one "-".
func packageName(name string) string {
	return nameSeparators.ReplaceAllString(strings.ToLower(name), "-")
}

// ParseRequirements reads a requirements file, as pip-compile writes one or as a person pins packages: one
// package a line (a backslash continues it), "# " comments, --hash options. It fails on anything else, such as
// another option, a URL or a package given twice, which the lock checks below could not judge.
func ParseRequirements(text string) (map[string]Requirement, error) {
	reqs := map[string]Requirement{}
	text = strings.ReplaceAll(text, "\\\n", " ")
	for i, line := range strings.Split(text, "\n") {
		if c := strings.Index(line, "#"); c >= 0 && (c == 0 || line[c-1] == ' ' || line[c-1] == '\t') {
			line = line[:c]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		m := requirementLine.FindStringSubmatch(fields[0])
		if m == nil || m[0] != fields[0] {
			return nil, fmt.Errorf("requirement %d: %q is no package name and version", i+1, fields[0])
		}
		name := packageName(m[1])
		if _, dup := reqs[name]; dup {
			return nil, fmt.Errorf("requirement %d: %s given twice", i+1, name)
		}
		r := Requirement{Spec: m[2]}
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "--hash=sha256:") {
				return nil, fmt.Errorf("requirement %d (%s): %q is not a --hash=sha256: option", i+1, name, f)
			}
			r.Hashes++
		}
		reqs[name] = r
	}
	return reqs, nil
}

// CheckLock compares a recipe's requirements.in with its lock, requirements.txt: each package of the first is
// pinned to an exact version, and the lock pins it to the same; every package of the lock is pinned with hashes,
// as `pip install --require-hashes` needs. It returns the problems it finds.
func CheckLock(in, lock string) []string {
	want, err := ParseRequirements(in)
	if err != nil {
		return []string{"requirements.in: " + err.Error()}
	}
	have, err := ParseRequirements(lock)
	if err != nil {
		return []string{"requirements.txt: " + err.Error()}
	}
	var problems []string
	if len(want) == 0 {
		problems = append(problems, "requirements.in names no package")
	}
	for name, r := range want {
		switch l, ok := have[name]; {
		case !exactVersion.MatchString(r.Spec):
			problems = append(problems, fmt.Sprintf("requirements.in: %s%s is not one exact version", name, r.Spec))
		case !ok:
			problems = append(problems, fmt.Sprintf("requirements.txt does not pin %s", name))
		case l.Spec != r.Spec:
			problems = append(problems, fmt.Sprintf("requirements.txt pins %s%s, requirements.in %s%s", name, l.Spec, name, r.Spec))
		}
	}
	for name, l := range have {
		if !exactVersion.MatchString(l.Spec) || l.Hashes == 0 {
			problems = append(problems, fmt.Sprintf("requirements.txt: %s%s is not pinned with hashes", name, l.Spec))
		}
	}
	slices.Sort(problems)
	return problems
}
