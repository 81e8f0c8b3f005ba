package docs_test

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestReadmeReleaseSteps: README.md's steps to cut a release end by creating
// and pushing the tag that starts .github/workflows/release.yml, and the text
// after them names each make target that workflow runs.
func TestReadmeReleaseSteps(t *testing.T) {
	root, readme := readReadme(t)
	const section = "Reference documentation and breaking changes"
	const key = section + "#2"
	var steps string
	for _, b := range readmeBlocks(readme) {
		if b.key() == key {
			steps = b.body
		}
	}
	if steps == "" {
		t.Fatalf("README.md has no block %q, the steps to cut a release", key)
	}

	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(mustRead(t, filepath.Join(root, ".github", "workflows", "release.yml")), &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On.Push.Tags) == 0 {
		t.Fatal(".github/workflows/release.yml runs on no pushed tag")
	}

	tag := regexp.MustCompile(`(?m)^git tag (?:-[as] )?(v\S+)`).FindStringSubmatch(steps)
	if tag == nil {
		t.Fatalf("the release steps create no tag (git tag vX.Y.Z):\n%s", steps)
	}
	if !regexp.MustCompile(`(?m)^git push \S+ ` + regexp.QuoteMeta(tag[1]) + `$`).MatchString(steps) {
		t.Errorf("the release steps do not push the tag %s:\n%s", tag[1], steps)
	}
	example := strings.ReplaceAll(tag[1], "X.Y.Z", "1.2.3")
	matched := false
	for _, pattern := range wf.On.Push.Tags {
		if ok, _ := path.Match(pattern, example); ok {
			matched = true
		}
	}
	if !matched {
		t.Errorf("the tag %s (%s) starts no release: release.yml runs on tags %q", tag[1], example, wf.On.Push.Tags)
	}

	text := strings.Join(strings.Fields(string(readmeSection(t, readme, section))), " ")
	seen := map[string]bool{}
	for name, job := range wf.Jobs {
		for _, step := range job.Steps {
			for _, m := range regexp.MustCompile(`(?m)(?:^|\s)make ([a-z][\w-]*)`).FindAllStringSubmatch(step.Run, -1) {
				seen[m[1]] = true
				if !strings.Contains(text, "`make "+m[1]+"`") {
					t.Errorf("release.yml's job %s runs make %s, which README.md's %q does not name", name, m[1], section)
				}
			}
		}
	}
	if !seen["release"] || !seen["release-check"] {
		t.Errorf("found make release and make release-check in no step of release.yml (found %v): the test reads it wrongly", seen)
	}
}
