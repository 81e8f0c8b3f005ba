// Command run runs the generator recipes of clients/README.md as a reader would (make test-generators): for each,
// in an empty directory holding only a copy of openapi.yaml, it writes the files and runs the commands the README
// shows, in order, against one portald built from this tree (a free loopback port, an in-memory store, the demo
// organization restored before each recipe). A recipe passes when its commands succeed, the program prints the
// README's output lines, the server holds what the program sent, npm warned about no engine and Go looked no
// module up at its latest version, npm left the committed lockfile as it was, and a Python recipe's lock pins
// what its requirements.in names.
//
// The README pins each npm package, but not the packages they depend on: tools/generators/RECIPE/package-lock.json
// is put beside the recipe's package.json before its commands run, so that `npm install` installs exactly that.
// Likewise tools/generators/RECIPE/requirements.txt, the lock with hashes of a Python recipe's requirements.in,
// is put beside it for `pip install --require-hashes -r requirements.txt`. With -update-locks, run rewrites those
// lockfiles from the README's package.json and requirements.in files instead (npm and pip-compile resolve the
// dependencies anew: review the change).
//
// pip keeps its downloads in .build/generators/pip (ignored by git), Maven in its own ~/.m2.
//
// Usage, from the repository root: go run ./tools/generators/run [-update-locks] [RECIPE...]
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/orgportal/portal-api/tools/generators"
)

const (
	readmePath = "clients/README.md"
	locksDir   = "tools/generators"
	pipCache   = ".build/generators/pip"
	// pipTools is the pip-tools whose pip-compile writes the Python recipes' locks.
	pipTools = "pip-tools==7.6.2"
)

// lockfiles are the lockfiles a recipe's directory in locksDir may hold, each put beside the recipe's files.
var lockfiles = []string{"package-lock.json", "requirements.txt"}

// What every recipe's program sends, read back from the server after it ran.
var (
	wantBanner = map[string]any{"text": "Read-only until 18:00 UTC", "bgColor": "grey", "fontColor": "#FFFFFF", "enabled": true}
	roads      = "93b54c8930ae46d9a00a7820cb3ebbd1"
	projects   = "1a9ad803da604628b08c968ce602a231"
)

// Output that means the recipe does not run as written on this machine's Node, or does not pin what it resolves.
var refused = regexp.MustCompile(`(?m)EBADENGINE|Unsupported engine|^go: finding module for package .*$`)

// sgr matches a terminal's colour and style sequences.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

func main() {
	updateLocks := flag.Bool("update-locks", false, "rewrite tools/generators/*/package-lock.json and requirements.txt from the README's package.json and requirements.in files")
	flag.Parse()
	if err := run(*updateLocks, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "test-generators:", err)
		os.Exit(1)
	}
}

func run(updateLocks bool, names []string) error {
	text, err := os.ReadFile(readmePath)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root)", err)
	}
	rd, err := generators.Parse(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", readmePath, err)
	}
	recipes := rd.Recipes
	if len(names) > 0 {
		recipes = nil
		for _, n := range names {
			r := rd.Recipe(n)
			if r == nil {
				return fmt.Errorf("%s has no recipe %q", readmePath, n)
			}
			recipes = append(recipes, *r)
		}
	}
	if len(recipes) == 0 {
		return fmt.Errorf("%s: no recipe", readmePath)
	}

	tmp, err := os.MkdirTemp("", "test-generators-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if updateLocks {
		return lock(tmp, recipes)
	}

	base, stop, err := startPortald(tmp)
	if err != nil {
		return err
	}
	defer stop()

	var failed []string
	for _, r := range recipes {
		start := time.Now()
		log, err := runRecipe(filepath.Join(tmp, r.Name), r, rd.Output, base)
		if err != nil {
			failed = append(failed, r.Name)
			fmt.Printf("FAIL %s (%s): %v\n%s\n", r.Name, time.Since(start).Round(time.Second), err, indent(log))
			continue
		}
		fmt.Printf("ok   %s (%s)\n", r.Name, time.Since(start).Round(time.Second))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d recipes fail: %s", len(failed), len(recipes), strings.Join(failed, " "))
	}
	fmt.Printf("PASS: %d of %d recipes run as written\n", len(recipes), len(recipes))
	return nil
}

// runRecipe runs r in dir against the portald at base and returns everything its commands printed.
func runRecipe(dir string, r generators.Recipe, output []string, base string) (string, error) {
	if err := reset(base); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := copyFile("openapi.yaml", filepath.Join(dir, "openapi.yaml")); err != nil {
		return "", err
	}
	locks := map[string][]byte{}
	for _, name := range lockfiles {
		lock, err := os.ReadFile(filepath.Join(locksDir, r.Name, name))
		switch {
		case err == nil:
			if err := os.WriteFile(filepath.Join(dir, name), lock, 0o644); err != nil {
				return "", err
			}
			locks[name] = lock
		case !errors.Is(err, os.ErrNotExist):
			return "", err
		}
	}
	cache, err := filepath.Abs(pipCache)
	if err != nil {
		return "", err
	}

	var log bytes.Buffer
	for _, s := range r.Steps {
		if s.File != "" {
			p := filepath.Join(dir, filepath.FromSlash(s.File))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return log.String(), err
			}
			if err := os.WriteFile(p, []byte(s.Text), 0o644); err != nil {
				return log.String(), err
			}
			continue
		}
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", s.Text)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"PORTAL_URL="+base,
			// Quieter, and no audit request: what npm installs is the same.
			"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
			"PIP_CACHE_DIR="+cache, "PIP_DISABLE_PIP_VERSION_CHECK=1")
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Run(); err != nil {
			return log.String(), fmt.Errorf("%s:%d: the commands failed: %v", readmePath, s.Line, err)
		}
	}

	// The README's Go files pass go vet, as this repository's do; the generated packages are the generator's.
	var goPackages []string
	for _, s := range r.Steps {
		if p := "./" + path.Dir(s.File); strings.HasSuffix(s.File, ".go") && !slices.Contains(goPackages, p) {
			goPackages = append(goPackages, p)
		}
	}
	if goPackages != nil {
		cmd := exec.Command(goCommand(), append([]string{"vet"}, goPackages...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &log, &log
		if err := cmd.Run(); err != nil {
			return log.String(), fmt.Errorf("go vet %s: %v", strings.Join(goPackages, " "), err)
		}
	}

	var problems []string
	if m := refused.FindAllString(log.String(), -1); m != nil {
		slices.Sort(m)
		problems = append(problems, fmt.Sprintf("the commands printed %q", slices.Compact(m)))
	}
	if !printsInOrder(log.String(), output) {
		problems = append(problems, fmt.Sprintf("the output does not hold the README's lines, in order:\n%s", indent(strings.Join(output, "\n"))))
	}
	if lock, ok := locks["package-lock.json"]; ok {
		after, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
		if err != nil || !bytes.Equal(after, lock) {
			problems = append(problems, fmt.Sprintf("npm install changed %s: the README's package.json and the lock differ "+
				"(go run ./tools/generators/run -update-locks %s)", filepath.Join(locksDir, r.Name, "package-lock.json"), r.Name))
		}
	}
	if in, ok := r.File("requirements.in"); ok {
		lockfile := filepath.Join(locksDir, r.Name, "requirements.txt")
		if p := generators.CheckLock(in, string(locks["requirements.txt"])); p != nil {
			problems = append(problems, fmt.Sprintf("%s is not the lock of the README's requirements.in (go run ./tools/generators/run "+
				"-update-locks %s): %s", lockfile, r.Name, strings.Join(p, "; ")))
		}
	}
	if err := checkServer(base); err != nil {
		problems = append(problems, err.Error())
	}
	if problems != nil {
		return log.String(), errors.New(strings.Join(problems, "; "))
	}
	return log.String(), nil
}

// printsInOrder reports whether want's lines are whole lines of out, in that order, as a terminal shows them:
// without the colour resets Maven 3.8 writes even with -q and -B, which the program's first line follows.
func printsInOrder(out string, want []string) bool {
	lines := strings.Split(sgr.ReplaceAllString(out, ""), "\n")
	i := 0
	for _, l := range lines {
		if i < len(want) && strings.TrimRight(l, " \r") == want[i] {
			i++
		}
	}
	return i == len(want)
}

// checkServer reads back what every recipe sends: the banner, and Roads moved to Projects.
func checkServer(base string) error {
	var settings struct{ InformationalBanner map[string]any }
	if err := get(base+"/portals/self/settings?f=json&token=demo-admin-token", &settings); err != nil {
		return err
	}
	if !reflect.DeepEqual(settings.InformationalBanner, wantBanner) {
		return fmt.Errorf("the server holds the banner %v, want %v", settings.InformationalBanner, wantBanner)
	}
	var item struct{ OwnerFolder string }
	if err := get(base+"/content/items/"+roads+"?f=json&token=demo-user-token", &item); err != nil {
		return err
	}
	if item.OwnerFolder != projects {
		return fmt.Errorf("the server holds Roads in folder %q, want %s", item.OwnerFolder, projects)
	}
	return nil
}

func get(u string, v any) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %v: %s", u, err, b)
	}
	return nil
}

// reset restores the demo organization.
func reset(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u.Path = "/emulator/reset"
	resp, err := http.Post(u.String(), "application/json", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"success":true`)) {
		return fmt.Errorf("emulator reset: %s %s", resp.Status, b)
	}
	return nil
}

// startPortald builds portald from this tree and starts it on a free loopback port with an in-memory store; it
// returns the REST root and a function that stops it.
func startPortald(tmp string) (string, func(), error) {
	bin := filepath.Join(tmp, "portald")
	build := exec.Command(goCommand(), "build", "-o", bin, "./cmd/portald")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return "", nil, fmt.Errorf("building portald: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0", "-db", ":memory:", "-log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		cancel()
		return "", nil, err
	}
	stop := func() { cancel(); _ = cmd.Wait() }
	// The first line names the REST root: "portald listening on ADDR, API at URL, ...".
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("portald did not start: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	m := regexp.MustCompile(` API at (http://[^,\s]+)`).FindStringSubmatch(line)
	if m == nil {
		stop()
		return "", nil, fmt.Errorf("unexpected portald start-up line: %s", line)
	}
	return m[1], stop, nil
}

// lock writes each recipe's package.json or requirements.in in an empty directory, resolves it with npm or
// pip-compile and copies the lock into tools/generators/RECIPE.
func lock(tmp string, recipes []generators.Recipe) error {
	pipCompile := ""
	for _, r := range recipes {
		dir := filepath.Join(tmp, r.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		var name string
		var cmd *exec.Cmd
		if pkg, ok := r.File("package.json"); ok {
			if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
				return err
			}
			name, cmd = "package-lock.json", exec.Command("npm", "install", "--package-lock-only", "--no-audit", "--no-fund")
		} else if in, ok := r.File("requirements.in"); ok {
			if pipCompile == "" {
				var err error
				if pipCompile, err = installPipTools(filepath.Join(tmp, "pip-tools")); err != nil {
					return err
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "requirements.in"), []byte(in), 0o644); err != nil {
				return err
			}
			// Hashes of every file of each version, so that the lock installs on other platforms too; no header
			// or --find-links, which would name this machine.
			name, cmd = "requirements.txt", exec.Command(pipCompile, "--quiet", "--generate-hashes", "--strip-extras", "--no-header",
				"--no-emit-find-links", "--no-emit-index-url", "--output-file", "requirements.txt", "requirements.in")
		} else {
			continue
		}
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		dst := filepath.Join(locksDir, r.Name, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := copyFile(filepath.Join(dir, name), dst); err != nil {
			return err
		}
		fmt.Println("wrote", dst)
	}
	return nil
}

// installPipTools installs pip-tools into a virtual environment at dir and returns its pip-compile. pip-tools
// writes the locks and is in none: it is installed at its pinned version, its own dependencies as pip resolves them.
func installPipTools(dir string) (string, error) {
	for _, args := range [][]string{
		{"python3", "-m", "venv", dir},
		{filepath.Join(dir, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", pipTools},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("installing %s: %s: %w", pipTools, strings.Join(args, " "), err)
		}
	}
	return filepath.Join(dir, "bin", "pip-compile"), nil
}

// goCommand is the go command make names ($GO), or go.
func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}
