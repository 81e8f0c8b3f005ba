// Package buildinfo holds the release version and source revision that a
// release build writes into portald and the conformance CLI with the linker
// (-X), so that a binary or an image can say which source it was built from.
package buildinfo

// Set with -ldflags "-X github.com/orgportal/portal-api/internal/buildinfo.Version=v1.2.3
// -X github.com/orgportal/portal-api/internal/buildinfo.Revision=<commit>" (mk/image.mk,
// .goreleaser.yaml); a plain go build leaves them as they are here.
var (
	Version  = "dev"
	Revision = ""
)

// String is "Version" or "Version (Revision)".
func String() string {
	if Revision == "" {
		return Version
	}
	return Version + " (" + Revision + ")"
}
