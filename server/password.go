package server

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"runtime"
	"strings"
)

// Passwords are stored as PBKDF2-SHA256 with a random salt, so a copied
// store or seed dump does not reveal them.
const pbkdf2Iterations = 4096

// HashPassword returns the stored form of a password.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	return "pbkdf2$" + base64.RawStdEncoding.EncodeToString(salt) + "$" + base64.RawStdEncoding.EncodeToString(derive(password, salt))
}

// checkPassword is CheckPassword for a request: at most hashers checks run at
// once, each a few milliseconds of one core, so that sign-ins arriving
// together leave the other cores to every other request instead of taking
// them all (a write queued behind them would wait for the scheduler's
// time slices). A check waits for its turn as long as ctx allows.
func (s *Service) checkPassword(ctx context.Context, hash, password string) (bool, error) {
	select {
	case s.hashers <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.hashers }()
	return CheckPassword(hash, password), nil
}

// hashers is how many password checks a Service runs at once: half the
// cores the Go runtime may use, at least one.
func hashers() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// CheckPassword reports whether password matches a HashPassword result.
func CheckPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 3 || parts[0] != "pbkdf2" {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[1])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil {
		return false
	}
	return hmac.Equal(derive(password, salt), want)
}

func derive(password string, salt []byte) []byte {
	key, err := pbkdf2.Key(sha256.New, password, salt, pbkdf2Iterations, 32)
	if err != nil {
		panic(err) // only for a key length out of range, fixed above
	}
	return key
}
