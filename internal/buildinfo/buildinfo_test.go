package buildinfo

import "testing"

func TestString(t *testing.T) {
	defer func(v, r string) { Version, Revision = v, r }(Version, Revision)
	Version, Revision = "v1.2.3", ""
	if got := String(); got != "v1.2.3" {
		t.Errorf("without a revision: %q", got)
	}
	Revision = "0123abc"
	if got := String(); got != "v1.2.3 (0123abc)" {
		t.Errorf("with a revision: %q", got)
	}
}
