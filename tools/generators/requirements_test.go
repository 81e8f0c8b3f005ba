package generators

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseRequirements(t *testing.T) {
	got, err := ParseRequirements(`# What the package imports.
httpx==0.28.1
Typing_Extensions==4.16.0 \
    --hash=sha256:aa \
    --hash=sha256:bb
    # via httpx
ruamel.yaml>=0.18  # a range
pydantic[email]==2.14.4 --hash=sha256:cc
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Requirement{
		"httpx":             {Spec: "==0.28.1"},
		"typing-extensions": {Spec: "==4.16.0", Hashes: 2},
		"ruamel-yaml":       {Spec: ">=0.18"},
		"pydantic":          {Spec: "==2.14.4", Hashes: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRequirements = %v, want %v", got, want)
	}

	for _, text := range []string{
		"httpx==0.28.1\nHTTPX==0.28.0\n",                // twice
		"-r other.txt\n",                                // an option
		"httpx==0.28.1 --hash=md5:aa\n",                 // another hash
		"https://example.org/httpx-0.28.1.tar.gz\n",     // a URL
		"httpx==0.28.1 \\\n    --index-url=https://x\n", // an option on a continued line
	} {
		if _, err := ParseRequirements(text); err == nil {
			t.Errorf("ParseRequirements(%q) succeeded", text)
		}
	}
}

func TestCheckLock(t *testing.T) {
	const lock = `attrs==26.1.0 \
    --hash=sha256:aa
certifi==2026.10.19.post1 \
    --hash=sha256:bb \
    --hash=sha256:cc
    # via httpx
httpx==0.28.1 \
    --hash=sha256:dd
`
	for in, want := range map[string][]string{
		"httpx==0.28.1\nattrs==26.1.0\n": nil,
		"# only\nhttpx==0.28.1\n":        nil,
		"httpx==0.28.0\n":                {"requirements.txt pins httpx==0.28.1, requirements.in httpx==0.28.0"},
		"httpx>=0.28\n":                  {"requirements.in: httpx>=0.28 is not one exact version"},
		"httpx\n":                        {"requirements.in: httpx is not one exact version"},
		"httpx==0.28.1\nruff==0.17.6\n":  {"requirements.txt does not pin ruff"},
		"":                               {"requirements.in names no package"},
	} {
		if got := CheckLock(in, lock); !slices.Equal(got, want) {
			t.Errorf("CheckLock(%q) = %q, want %q", in, got, want)
		}
	}

	unhashed := strings.Replace(lock, "attrs==26.1.0 \\\n    --hash=sha256:aa\n", "attrs==26.1.0\n", 1)
	if got, want := CheckLock("httpx==0.28.1\n", unhashed), []string{"requirements.txt: attrs==26.1.0 is not pinned with hashes"}; !slices.Equal(got, want) {
		t.Errorf("CheckLock(a lock without a hash) = %q, want %q", got, want)
	}
	if got := CheckLock("httpx==0.28.1\n", "httpx>=0.28 --hash=sha256:aa\n"); len(got) != 2 {
		t.Errorf("CheckLock(a lock with a range) = %q, want the range and the differing pin", got)
	}
}
