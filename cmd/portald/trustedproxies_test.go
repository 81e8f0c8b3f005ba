package main

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestTrustedProxiesSetting: -trusted-proxies (PORTAL_TRUSTED_PROXIES)
// takes CIDRs and bare addresses, comma-separated; none by default; a
// value that is neither is refused, naming it.
func TestTrustedProxiesSetting(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := Load(nil, env(nil))
	if err != nil || len(c.TrustedProxies) != 0 {
		t.Fatalf("default: %v, %v", c.TrustedProxies, err)
	}
	c, err = Load([]string{"-trusted-proxies", "10.0.0.0/8, 192.0.2.7,::1"}, env(nil))
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("::1/128")}
	if err != nil || !slices.Equal(c.TrustedProxies, want) {
		t.Errorf("flag: %v, %v; want %v", c.TrustedProxies, err, want)
	}
	c, err = Load(nil, env(map[string]string{"PORTAL_TRUSTED_PROXIES": "172.16.0.0/12"}))
	if err != nil || len(c.TrustedProxies) != 1 || c.TrustedProxies[0] != netip.MustParsePrefix("172.16.0.0/12") {
		t.Errorf("environment: %v, %v", c.TrustedProxies, err)
	}
	if _, err := Load([]string{"-trusted-proxies", "proxy.example"}, env(nil)); err == nil || !strings.Contains(err.Error(), `"proxy.example"`) {
		t.Errorf("a host name: %v", err)
	}
	if _, err := Load(nil, env(map[string]string{"PORTAL_TRUSTED_PROXIES": "10.0.0.0/33"})); err == nil {
		t.Errorf("a bad CIDR in the environment was taken")
	}
}
