package docs_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/docs"
)

// The committed emulator page is built from emulator.yaml: same version,
// same operations (TestReferenceSelfContained checks what it loads).
func TestEmulatorReferenceMatchesContract(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(portalapi.EmulatorYAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("emulator.yaml: %v", err)
	}
	var want []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			want = append(want, op.OperationID)
		}
	}
	m := stateRe.FindSubmatch(docs.EmulatorHTML)
	if m == nil {
		t.Fatal("emulator.html: no Redoc state: run make docs-emulator")
	}
	var state struct {
		Spec struct {
			Data struct {
				Info struct{ Version string }
				// A path item holds its parameters beside its operations.
				Paths map[string]map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(m[1], &state); err != nil {
		t.Fatalf("emulator.html: Redoc state: %v", err)
	}
	if got := state.Spec.Data.Info.Version; got != doc.Info.Version {
		t.Errorf("emulator.html documents version %q, emulator.yaml is %q: run make docs-emulator", got, doc.Info.Version)
	}
	var got []string
	for _, item := range state.Spec.Data.Paths {
		for _, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) == nil && op.OperationID != "" {
				got = append(got, op.OperationID)
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("emulator.html documents\n%v\nemulator.yaml has\n%v\nrun make docs-emulator", got, want)
	}
}
