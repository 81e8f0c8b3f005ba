package server

import "testing"

func TestPassword(t *testing.T) {
	h := HashPassword("s3cret")
	if !CheckPassword(h, "s3cret") {
		t.Fatal("right password rejected")
	}
	if CheckPassword(h, "s3cret ") || CheckPassword(h, "") {
		t.Fatal("wrong password accepted")
	}
	if HashPassword("s3cret") == h {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, bad := range []string{"", "pbkdf2$x", "md5$a$b", "pbkdf2$!!$!!"} {
		if CheckPassword(bad, "s3cret") {
			t.Errorf("malformed hash %q accepted", bad)
		}
	}
}
