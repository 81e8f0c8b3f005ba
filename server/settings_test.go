package server

import (
	"encoding/json"
	"testing"
)

// TestConfigBytes: the stored size the bound applies to is what
// encoding/json writes for the properties, computed without writing them.
func TestConfigBytes(t *testing.T) {
	for _, m := range []map[string]json.RawMessage{
		{},
		{"a": json.RawMessage(`1`)},
		{"tab\there": json.RawMessage(`"x"`), `quo"te\`: json.RawMessage(`[1,2]`), "<&>": json.RawMessage(`true`)},
		{"caf\u00e9 \U0001F680 \u2028": json.RawMessage(`null`), "nul\x00\x1f": json.RawMessage(`{}`)},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := configBytes(m); got != len(b) {
			t.Errorf("configBytes(%v) = %d, json.Marshal writes %d bytes: %s", m, got, len(b), b)
		}
	}
}
