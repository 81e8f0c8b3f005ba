package seed

import (
	"sync"

	"github.com/orgportal/portal-api/server"
)

// hashes remembers the stored form of each seed password this process has
// hashed. Hashing is deliberately slow (PBKDF2), and a test suite writes the
// same seed into a new store for every test: each password is hashed once,
// with one salt, for the life of the process.
var hashes sync.Map // password -> hash

func hashPassword(password string) string {
	if h, ok := hashes.Load(password); ok {
		return h.(string)
	}
	h, _ := hashes.LoadOrStore(password, server.HashPassword(password))
	return h.(string)
}
