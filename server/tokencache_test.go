package server

import (
	"testing"
	"time"
)

// A principal read before the cache was emptied (a reset removed tokens) is
// not kept after it: its token may be one the reset removed.
func TestTokenCacheKeepsNothingReadBeforeAClear(t *testing.T) {
	var c tokenCache
	now := time.Unix(1000, 0)
	e := cachedToken{principal: Principal{User: User{Username: "jsmith"}}}
	before := c.generation()
	c.clear()
	c.put("t", e, now, before)
	if _, hit := c.get("t", now); hit {
		t.Fatal("a principal read before the clear was kept")
	}
	c.put("t", e, now, c.generation())
	if got, hit := c.get("t", now); !hit || got.principal.User.Username != "jsmith" {
		t.Fatalf("a principal read after the clear: %+v, %v", got, hit)
	}
	if _, hit := c.get("t", now.Add(tokenCacheTTL)); hit {
		t.Fatal("a principal outlived the cache's TTL")
	}
}
