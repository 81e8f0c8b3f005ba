package wire

import (
	"reflect"
	"testing"
)

func TestListValues(t *testing.T) {
	cases := map[string][]string{
		"":              nil,
		"a":             {"a"},
		" a , b ,,c":    {"a", "b", "c"},
		"a,a":           {"a", "a"},
		`["x","y"]`:     {"x", "y"},
		` [" x ", ""] `: {"x"},
		"[not json":     {"[not json"},
		"a%2Cb":         {"a%2Cb"},
	}
	for in, want := range cases {
		if got := List(in).Values(); !reflect.DeepEqual(got, want) {
			t.Errorf("List(%q).Values() = %#v, want %#v", in, got, want)
		}
	}
	if Join("a", "b") != "a,b" {
		t.Errorf("Join = %q", Join("a", "b"))
	}
}

func TestJSON(t *testing.T) {
	type banner struct {
		Text string `json:"text"`
	}
	j, err := EncodeJSON(banner{Text: "<b>&"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.Decode()
	if err != nil || got.Text != "<b>&" {
		t.Errorf("round trip: %+v %v", got, err)
	}
	if _, err := JSON[banner]("{").Decode(); err == nil {
		t.Error("broken JSON decoded without error")
	}
	if _, err := EncodeJSON(map[string]any{"f": func() {}}); err == nil {
		t.Error("unmarshalable value encoded")
	}
}
