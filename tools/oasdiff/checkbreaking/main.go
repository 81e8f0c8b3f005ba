// Command checkbreaking is the breaking-change gate of the contract. It
// compares a spec with the last release (the highest version among the
// openapi-X.Y.Z.yaml files of a directory) using oasdiff, prints the
// changelog, and fails on a breaking change unless the major of the spec's
// info.version is greater than the release's.
//
// Usage: checkbreaking [-released DIR|FILE] [-changelog FILE] [-oasdiff CMD] SPEC
//
// Exit status: 0 the change may ship, 1 it may not, 2 the gate could not judge.
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

const (
	exitPass  = 0
	exitFail  = 1
	exitError = 2
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("checkbreaking", flag.ContinueOnError)
	flags.SetOutput(stderr)
	released := flags.String("released", "api/released", "directory of released specs named openapi-X.Y.Z.yaml, or one released spec")
	changelog := flags.String("changelog", "", "write the Markdown changelog to this file instead of standard output")
	oasdiff := flags.String("oasdiff", "go tool oasdiff", "command that runs oasdiff (split on spaces)")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: checkbreaking [-released DIR|FILE] [-changelog FILE] [-oasdiff CMD] SPEC")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return exitError
	}
	if flags.NArg() != 1 {
		flags.Usage()
		return exitError
	}
	spec := flags.Arg(0)

	code, err := gate(spec, *released, *changelog, strings.Fields(*oasdiff), stdout)
	if err != nil {
		fmt.Fprintf(stderr, "checkbreaking: %v\n", err)
	}
	return code
}

func gate(spec, released, changelog string, oasdiff []string, stdout io.Writer) (int, error) {
	if len(oasdiff) == 0 {
		return exitError, errors.New("-oasdiff is empty")
	}
	base, err := lastRelease(released)
	if err != nil {
		return exitError, err
	}
	baseVersion, err := specVersion(base)
	if err != nil {
		return exitError, err
	}
	if v, ok := releaseVersion(base); ok && v.compare(baseVersion) != 0 {
		return exitError, fmt.Errorf("%s: info.version is %s, the file name says %s", base, baseVersion.text, v.text)
	}
	version, err := specVersion(spec)
	if err != nil {
		return exitError, err
	}
	fmt.Fprintf(stdout, "%s (%s) against release %s (%s)\n", spec, version.text, baseVersion.text, base)
	if version.compare(baseVersion) < 0 {
		return exitFail, fmt.Errorf("%s: info.version %s is lower than the last release, %s", spec, version.text, baseVersion.text)
	}

	// Breaking changes: oasdiff exits 1 when it finds one at level ERR.
	var report bytes.Buffer
	status, err := runOasdiff(oasdiff, &report, "breaking", base, spec, "--fail-on", "ERR", "--color", "never")
	if err != nil {
		return exitError, err
	}
	if status > 1 {
		return exitError, fmt.Errorf("oasdiff breaking: exit status %d\n%s", status, report.Bytes())
	}
	breaking := status == 1

	var log bytes.Buffer
	status, err = runOasdiff(oasdiff, &log, "changelog", base, spec, "--format", "markdown")
	if err != nil {
		return exitError, err
	}
	if status != 0 {
		return exitError, fmt.Errorf("oasdiff changelog: exit status %d\n%s", status, log.Bytes())
	}
	if changelog != "" {
		if err := os.WriteFile(changelog, log.Bytes(), 0o644); err != nil {
			return exitError, err
		}
		fmt.Fprintf(stdout, "changelog written to %s\n", changelog)
	} else {
		fmt.Fprintf(stdout, "%s\n\n", bytes.TrimSpace(log.Bytes()))
	}

	switch {
	case !breaking:
		fmt.Fprintln(stdout, "no breaking change")
		return exitPass, nil
	case version.major > baseVersion.major:
		fmt.Fprintf(stdout, "breaking changes, carried by the major version %d (release %s)\n", version.major, baseVersion.text)
		return exitPass, nil
	default:
		fmt.Fprintf(stdout, "%s\n", bytes.TrimSpace(report.Bytes()))
		return exitFail, fmt.Errorf("breaking changes since release %s: set info.version of %s to %d.0.0, or keep the old behaviour (deprecate before removing)",
			baseVersion.text, spec, baseVersion.major+1)
	}
}

// runOasdiff returns oasdiff's exit status; err only when it could not run.
func runOasdiff(command []string, out io.Writer, args ...string) (int, error) {
	cmd := exec.Command(command[0], append(command[1:], args...)...)
	cmd.Stdout = out
	cmd.Stderr = out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", strings.Join(command, " "), err)
	}
	return 0, nil
}

// semver is the precedence of a semantic version; prerelease and build
// metadata are kept in text only, as the gate judges the major alone.
type semver struct {
	major, minor, patch int
	text                string
}

var semverRe = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)

func parseSemver(s string) (semver, bool) {
	m := semverRe.FindStringSubmatch(s)
	if m == nil {
		return semver{}, false
	}
	n := make([]int, 3)
	for i := range n {
		var err error
		if n[i], err = strconv.Atoi(m[i+1]); err != nil {
			return semver{}, false
		}
	}
	return semver{n[0], n[1], n[2], s}, true
}

// compare orders by precedence: negative when v comes before w.
func (v semver) compare(w semver) int {
	return cmp.Or(cmp.Compare(v.major, w.major), cmp.Compare(v.minor, w.minor), cmp.Compare(v.patch, w.patch))
}

var releaseRe = regexp.MustCompile(`^openapi-(\d+\.\d+\.\d+)\.yaml$`)

// releaseVersion is the version a release file's name carries.
func releaseVersion(path string) (semver, bool) {
	m := releaseRe.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return semver{}, false
	}
	return parseSemver(m[1])
}

// lastRelease is path itself when it is a file, else the release of the
// highest version in the directory (by semver: 1.10.0 comes after 1.9.0).
func lastRelease(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return path, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return "", err
	}
	var last string
	var lastVersion semver
	for _, e := range entries {
		v, ok := releaseVersion(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		if last == "" || v.compare(lastVersion) > 0 {
			last, lastVersion = filepath.Join(path, e.Name()), v
		}
	}
	if last == "" {
		return "", fmt.Errorf("%s: no release (openapi-X.Y.Z.yaml)", path)
	}
	return last, nil
}

// specVersion reads info.version, which must be a semantic version.
func specVersion(path string) (semver, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return semver{}, err
	}
	var doc struct {
		Info struct {
			Version string `yaml:"version"`
		} `yaml:"info"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return semver{}, fmt.Errorf("%s: %w", path, err)
	}
	v, ok := parseSemver(doc.Info.Version)
	if !ok {
		return semver{}, fmt.Errorf("%s: info.version %q is not a semantic version (MAJOR.MINOR.PATCH)", path, doc.Info.Version)
	}
	return v, nil
}
