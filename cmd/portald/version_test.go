package main

import (
	"strings"
	"testing"

	"github.com/orgportal/portal-api/internal/buildinfo"
)

// `portald version` prints the build's version, which -version (the portal's
// version emulated) cannot; the usage says which is which.
func TestVersionWord(t *testing.T) {
	defer func(v, r string) { buildinfo.Version, buildinfo.Revision = v, r }(buildinfo.Version, buildinfo.Revision)
	buildinfo.Version, buildinfo.Revision = "v1.2.3", "abc1234"
	var out strings.Builder
	if err := run(t.Context(), []string{"version"}, env(nil), &out, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "portald v1.2.3 (abc1234)\n"; got != want {
		t.Errorf("portald version printed %q, want %q", got, want)
	}
	var usage strings.Builder
	if err := run(t.Context(), []string{"-h"}, env(nil), &usage, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(usage.String(), "portald version prints the build's version") {
		t.Errorf("the usage does not say what portald version does:\n%s", usage.String())
	}
}
