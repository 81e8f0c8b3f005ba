package api

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// RequestBase returns the origin a request came in on, scheme://host[:port]
// as the client addressed the server, and base, that origin followed by
// context (Config.Context: "" or "/name"). Every URL the server writes into
// an answer starts with base, such as base + "/sharing/rest/generateToken",
// so that it names the server as the client reached it: over HTTPS or not,
// by whichever name, port and context.
//
// The scheme is https when the request came over TLS, http otherwise; the
// host is the Host header when it names this server: localhost, a loopback
// address, the address the connection reached, or one of names (the names
// the operator gave it). Any other Host, which a client or a page on a
// rebound DNS name may set to anything, decides nothing: the host is then
// the address the connection reached, the listener's. A proxy in front of the server may say what the client used
// instead: the first element of Forwarded (RFC 7239, its proto= and host=),
// or else the first value of X-Forwarded-Proto and X-Forwarded-Host.
// Those reach RequestBase only from a proxy the operator named
// (Config.TrustedProxies; TrustForwarding removes them from any other
// peer's request first): the origin decides the built-in applications'
// redirect URI and the emulator's own origin, so no client may set it.
// Without trusted proxies the scheme is the listener's. A value that is not
// http or https, or not a host[:port], is ignored.
func RequestBase(r *http.Request, context string, names []string) (origin, base string) {
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if host == "" || !ownHost(r, host, names) {
		host = localHost(r)
	}
	proto, fhost := forwarded(r.Header)
	if proto != "" {
		scheme = proto
	}
	if fhost != "" {
		host = fhost
	}
	origin = scheme + "://" + host
	return origin, origin + context
}

// forwardingHeaders are the headers by which a proxy says what the client
// used and who it is.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-For"}

// TrustForwarding removes the forwarding headers from r unless its peer is
// one of trusted (the proxies the operator named): from anyone else they
// are the client's own words.
func TrustForwarding(r *http.Request, trusted []netip.Prefix) {
	if peerTrusted(r, trusted) {
		return
	}
	for _, h := range forwardingHeaders {
		if _, ok := r.Header[h]; ok {
			r.Header.Del(h)
		}
	}
}

// peerTrusted reports whether r's connection comes from one of trusted.
func peerTrusted(r *http.Request, trusted []netip.Prefix) bool {
	if len(trusted) == 0 {
		return false
	}
	ip, ok := peerIP(r)
	return ok && inPrefixes(ip, trusted)
}

func peerIP(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	return ip.Unmap(), err == nil
}

func inPrefixes(ip netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ClientIP is the address of the client that sent r: the connection's
// peer, or behind trusted proxies the last address X-Forwarded-For names
// that is not one of them (the one the first trusted proxy saw).
func ClientIP(r *http.Request, trusted []netip.Prefix) string {
	ip, ok := peerIP(r)
	if !ok {
		return r.RemoteAddr
	}
	if !inPrefixes(ip, trusted) {
		return ip.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		ip = hop.Unmap()
		if !inPrefixes(ip, trusted) {
			break
		}
	}
	return ip.String()
}

// forwarded reads the scheme and host a proxy says the client used; either
// is "" when not said, or not said well.
func forwarded(h http.Header) (proto, host string) {
	if v := h.Get("Forwarded"); v != "" {
		elem, _, _ := strings.Cut(v, ",")
		for pair := range strings.SplitSeq(elem, ";") {
			k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok {
				continue
			}
			val = strings.Trim(val, `"`)
			switch strings.ToLower(k) {
			case "proto":
				proto = val
			case "host":
				host = val
			}
		}
	}
	if proto == "" {
		proto, _, _ = strings.Cut(h.Get("X-Forwarded-Proto"), ",")
	}
	if host == "" {
		host, _, _ = strings.Cut(h.Get("X-Forwarded-Host"), ",")
	}
	proto = strings.ToLower(strings.TrimSpace(proto))
	if proto != "http" && proto != "https" {
		proto = ""
	}
	host = strings.TrimSpace(host)
	if !validHost(host) {
		host = ""
	}
	return proto, host
}

// validHost reports whether s is a host name or IP address with an
// optional port, as a Host header holds it: nothing that could end the
// authority of a URL (/, ?, #, @) or break a header.
func validHost(s string) bool {
	name, port, hasPort := s, "", false
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || net.ParseIP(s[1:end]) == nil || !strings.Contains(s[1:end], ":") {
			return false
		}
		name, port = "", s[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port, hasPort = port[1:], true
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		name, port, hasPort = s[:i], s[i+1:], true
	}
	if name == "" && !strings.HasPrefix(s, "[") {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	if hasPort && (port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "") {
		return false
	}
	return true
}

// ownHost reports whether hostport, a Host header's value, names this
// server: localhost, a loopback address, the address the connection
// reached, or one of names.
func ownHost(r *http.Request, hostport string, names []string) bool {
	host := HostName(hostport)
	if NamedHost(host, names) {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		return ip.IsLoopback() || ok && addrIP(local) == ip.Unmap()
	}
	return false
}

// HostName is the host of hostport, a Host header's value: lowercased,
// without its port, its brackets or a final dot.
func HostName(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

// NamedHost reports whether host, as HostName gives it, is localhost or one
// of names, the names the operator gave the server.
func NamedHost(host string, names []string) bool {
	if host == "localhost" {
		return true
	}
	for _, n := range names {
		if strings.EqualFold(strings.TrimSuffix(n, "."), host) {
			return true
		}
	}
	return false
}

// addrIP is a listener's address's IP; the zero Addr when it has none.
func addrIP(a net.Addr) netip.Addr {
	if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// localHost is the address the connection reached: the host of a request
// without a Host header (HTTP/1.0) or with one that does not name this
// server.
func localHost(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return a.String()
	}
	return "localhost"
}
