package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Tokens bound by generateToken (client=referer, requestip or ip) carry
// their binding: the random id, a dot, the kind ('r' for a Referer, 'i' for
// an address) and a digest of the value bound to. Tokens are looked up
// whole, so the suffix cannot be changed without making another, unknown
// token, and no column of the store has to hold the binding.
const (
	boundIDLen     = 32 // randomID's hex
	bindDigestLen  = 22 // base64url characters of the SHA-256 (132 bits)
	boundTokenLen  = boundIDLen + 2 + bindDigestLen
	bindKindRefer  = 'r'
	bindKindAddr   = 'i'
	maxReferPrefix = 32 // candidates tried from one Referer header
)

// TokenBinding is what generateToken binds a token to: its client
// parameter (referer, requestip or ip; "" for none) and the values.
type TokenBinding struct {
	Client, Referer, IP string
}

// bindingSuffix returns the suffix a token bound as b carries ("" when b
// binds nothing); addr is the address that asked (client=requestip).
func (b TokenBinding) suffix(addr string) (string, error) {
	switch b.Client {
	case "":
		return "", nil
	case "referer":
		if b.Referer == "" {
			return "", Invalid("referer: required with client=referer")
		}
		return "." + string(bindKindRefer) + bindDigest(bindKindRefer, b.Referer), nil
	case "requestip", "ip":
		a := addr
		if b.Client == "ip" {
			a = b.IP
		}
		ip, err := netip.ParseAddr(a)
		if err != nil {
			if b.Client == "ip" {
				return "", Invalid(fmt.Sprintf("ip: %q is not an IP address", b.IP))
			}
			return "", fmt.Errorf("server: client=requestip: no client address (%q)", addr)
		}
		return "." + string(bindKindAddr) + bindDigest(bindKindAddr, ip.Unmap().String()), nil
	}
	return "", Invalid("client: want referer, requestip or ip")
}

func bindDigest(kind byte, value string) string {
	sum := sha256.Sum256([]byte{kind, 0})
	h := sha256.New()
	h.Write(sum[:])
	h.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))[:bindDigestLen]
}

// CheckTokenBinding returns ErrInvalidToken (498) when token is bound to a
// Referer or an address that this request, with its Referer header and
// client address, does not have; nil for a token bound to nothing.
func CheckTokenBinding(token, referer, addr string) error {
	if len(token) != boundTokenLen || token[boundIDLen] != '.' {
		return nil
	}
	kind, digest := token[boundIDLen+1], token[boundIDLen+2:]
	ok := false
	switch kind {
	case bindKindRefer:
		ok = refererMatches(digest, referer)
	case bindKindAddr:
		if ip, err := netip.ParseAddr(addr); err == nil {
			ok = sameDigest(digest, bindDigest(bindKindAddr, ip.Unmap().String()))
		}
	default:
		return nil // not the shape of a bound token
	}
	if !ok {
		return clone(ErrInvalidToken)
	}
	return nil
}

// refererMatches reports whether a Referer header matches the referer a
// token was bound to, known by its digest: the header itself; the header
// cut before a '/', '?' or '#', or after a '/' (the token bound to a site,
// used from one of its pages); or the header's host[:port] (ArcGIS REST JS
// binds to window.location.host, and the browser sends the page's URL).
func refererMatches(digest, header string) bool {
	if header == "" {
		return false
	}
	match := func(v string) bool { return sameDigest(digest, bindDigest(bindKindRefer, v)) }
	if match(header) {
		return true
	}
	if u, err := url.Parse(header); err == nil && u.Host != "" && (match(u.Host) || match(strings.ToLower(u.Host))) {
		return true
	}
	tried := 0
	for i := 0; i < len(header) && tried < maxReferPrefix; i++ {
		switch header[i] {
		case '/':
			if i > 0 && match(header[:i]) || match(header[:i+1]) {
				return true
			}
			tried += 2
		case '?', '#':
			if match(header[:i]) {
				return true
			}
			tried++
		}
	}
	return false
}

func sameDigest(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
