package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sync"
)

// signingKeys holds the store's signing key once read: it never changes.
type signingKeys struct {
	mu  sync.Mutex
	key []byte
}

// signingKeyName names the key in the store.
const signingKeyName = "oauth"

// signingKey returns the store's signing key, made on first use.
func (s *Service) signingKey(ctx context.Context) ([]byte, error) {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if s.keys.key != nil {
		return s.keys.key, nil
	}
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	var stored string
	err := s.store.Update(ctx, func(tx Tx) error {
		var err error
		stored, err = tx.SigningKey(ctx, signingKeyName, base64.RawStdEncoding.EncodeToString(fresh))
		return err
	})
	if err != nil {
		return nil, err
	}
	key, err := base64.RawStdEncoding.DecodeString(stored)
	if err != nil || len(key) < 32 {
		return nil, errBadSigningKey
	}
	s.keys.key = key
	return key, nil
}

var errBadSigningKey = &Error{Code: 500, Message: "the store's signing key is not 32 bytes of base64"}

// mac is the HMAC-SHA256 of the purpose and data under key.
func mac(key []byte, purpose, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(data))
	return h.Sum(nil)
}

// codeGrant is the grant of an authorization code (Token.Grant): every token
// the code leads to carries it, and a code used again revokes them by it
// (RFC 6749 4.1.2) without the store keeping the code; derived under the
// signing key, so that nobody without it can tell a code's grant.
func codeGrant(key []byte, code string) string {
	return hex.EncodeToString(mac(key, "code-grant", code)[:16])
}
