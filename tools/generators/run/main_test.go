package main

import "testing"

func TestPrintsInOrder(t *testing.T) {
	want := []string{"banner: x", "moveItems: a moved"}
	for out, ok := range map[string]bool{
		"added 3 packages\nbanner: x\nnoise\nmoveItems: a moved\n": true,
		"banner: x  \r\nmoveItems: a moved":                        true,
		"\x1b[0m\x1b[0mbanner: x\nmoveItems: a moved\n\x1b[0m":     true,
		"\x1b[1mbanner: x\x1b[0m\nmoveItems: a moved\n":            true,
		"\x1b[0m\x1bbanner: x\nmoveItems: a moved\n":               false,
		"moveItems: a moved\nbanner: x\n":                          false,
		"banner: xy\nmoveItems: a moved\n":                         false,
		"banner: x\n":                                              false,
		"":                                                         false,
	} {
		if got := printsInOrder(out, want); got != ok {
			t.Errorf("printsInOrder(%q) = %v, want %v", out, got, ok)
		}
	}
}

func TestRefused(t *testing.T) {
	for out, want := range map[string]bool{
		"npm warn EBADENGINE Unsupported engine {":                                 true,
		"go: finding module for package github.com/oapi-codegen/runtime\n":         true,
		"go: downloading github.com/ogen-go/ogen v1.24.0\nadded 20 packages in 5s": false,
	} {
		if got := refused.MatchString(out); got != want {
			t.Errorf("refused.MatchString(%q) = %v, want %v", out, got, want)
		}
	}
}
