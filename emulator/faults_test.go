package emulator_test

import (
	"net/http"
	"testing"

	"github.com/orgportal/portal-api/emulator"
)

// The bounds of a fault's codes and a header value's tab are accepted:
// TestFaultRulesRefused has what lies beyond.
func TestFaultRulesAtTheBounds(t *testing.T) {
	_, hs := start(t, emulator.Options{})
	for _, body := range []string{
		`{"operation":"getSelf","error":{"code":400}}`,
		`{"operation":"getSelf","error":{"code":599}}`,
		`{"operation":"moveItems","itemErrors":{"*":{"code":400},"abc":{"code":599}}}`,
		`{"operation":"getItem","status":503,"headers":{"Retry-After":"1","X-Note":"a\tb ü"}}`,
	} {
		if status, raw, _ := call(t, hs.URL, "POST", "/emulator/faults", body, nil); status != http.StatusOK {
			t.Errorf("%s: HTTP %d %s", body, status, raw)
		}
	}
}
