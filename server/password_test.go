package server

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

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

// TestPasswordChecksTakeTurns: a Service runs at most hashers() password
// checks at once; one more waits for a turn, and gives up when its context
// ends, having checked nothing.
func TestPasswordChecksTakeTurns(t *testing.T) {
	s := NewService(nil, Gates{})
	h := HashPassword("s3cret")
	if cap(s.hashers) != max(1, runtime.GOMAXPROCS(0)/2) {
		t.Fatalf("%d checks at once, want half the cores", cap(s.hashers))
	}
	for range cap(s.hashers) {
		s.hashers <- struct{}{} // every turn taken
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := s.checkPassword(ctx, h, "s3cret")
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a check without a turn, its context cancelled: %v", err)
	}
	<-s.hashers // a turn given back
	if ok, err := s.checkPassword(t.Context(), h, "s3cret"); !ok || err != nil {
		t.Fatalf("a check with a turn free: %v, %v", ok, err)
	}
	if len(s.hashers) != cap(s.hashers)-1 {
		t.Errorf("%d turns taken after the check, want %d: a check gives its turn back", len(s.hashers), cap(s.hashers)-1)
	}
}
