package server

import "testing"

func TestValidColor(t *testing.T) {
	for c, want := range map[string]bool{
		"#fff": true, "#FFFA": true, "#003366": true, "#0033667f": true, "#aBcDeF": true,
		"white": true, "WHITE": true, "RebeccaPurple": true, "transparent": true,
		"": false, "#": false, "#ff": false, "#fffff": false, "#fffffff": false, "#fffffffff": false,
		"#ggg": false, "#12345g": false, "fff": false, "003366": false, "##fff": false, "#fff ": false,
		" white": false, "whitey": false, "rgb(0,0,0)": false, "#ｆｆｆ": false,
	} {
		if got := validColor(c); got != want {
			t.Errorf("validColor(%q) = %v, want %v", c, got, want)
		}
	}
}
