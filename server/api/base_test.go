package api_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/server/api"
)

// RequestBase names the server as the client reached it: scheme from the
// connection, host from the Host header when it names the server (else the
// listener's address), unless a proxy says otherwise in a header that holds a
// usable value. The server listens on 10.0.0.5:8080 and is known as
// portal.example.com.
func TestRequestBase(t *testing.T) {
	cases := []struct {
		name    string
		tls     bool
		host    string
		header  map[string]string
		context string
		origin  string
	}{
		{name: "plain", host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080"},
		{name: "tls", tls: true, host: "localhost:8443", origin: "https://localhost:8443"},
		{name: "context", tls: true, host: "portal.example.com", context: "/portal", origin: "https://portal.example.com"},
		{name: "ipv6", host: "[::1]:8080", origin: "http://[::1]:8080"},
		{name: "the listener's address", host: "10.0.0.5:8080", origin: "http://10.0.0.5:8080"},
		{name: "a name not given decides nothing", host: "evil.example", origin: "http://10.0.0.5:8080"},
		{name: "a name not given, over tls", tls: true, host: "evil.example:8443", context: "/portal", origin: "https://10.0.0.5:8080"},
		{name: "an address not the server's decides nothing", host: "192.0.2.7:8080", origin: "http://10.0.0.5:8080"},
		{name: "names ignore case and a final dot", host: "Portal.Example.COM.:8443", origin: "http://Portal.Example.COM.:8443"},
		{name: "x-forwarded", host: "10.0.0.5:8080", header: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "gis.example.com"}, origin: "https://gis.example.com"},
		{name: "x-forwarded lists", host: "10.0.0.5:8080", header: map[string]string{"X-Forwarded-Proto": "HTTPS, http", "X-Forwarded-Host": "gis.example.com:8443, inner:80"}, origin: "https://gis.example.com:8443"},
		{name: "x-forwarded proto only", tls: false, host: "localhost:8080", header: map[string]string{"X-Forwarded-Proto": "https"}, origin: "https://localhost:8080"},
		{name: "forwarded", host: "10.0.0.5:8080", header: map[string]string{"Forwarded": `for=192.0.2.60;proto=https;host="gis.example.com", for=10.0.0.1;proto=http;host=inner`}, origin: "https://gis.example.com"},
		{name: "forwarded beats x-forwarded", host: "inner", header: map[string]string{"Forwarded": "proto=https;host=a.example", "X-Forwarded-Proto": "http", "X-Forwarded-Host": "b.example"}, origin: "https://a.example"},
		{name: "forwarded host only", tls: true, host: "inner", header: map[string]string{"Forwarded": "host=a.example", "X-Forwarded-Proto": "http"}, origin: "http://a.example"},
		{name: "bad proto ignored", tls: true, host: "localhost:8443", header: map[string]string{"X-Forwarded-Proto": "javascript"}, origin: "https://localhost:8443"},
		{name: "host with a path ignored", host: "localhost:8080", header: map[string]string{"X-Forwarded-Host": "evil.example/x"}, origin: "http://localhost:8080"},
		{name: "host with userinfo ignored", host: "localhost:8080", header: map[string]string{"X-Forwarded-Host": "user@evil.example"}, origin: "http://localhost:8080"},
		{name: "host with a bad port ignored", host: "localhost:8080", header: map[string]string{"X-Forwarded-Host": "evil.example:80x"}, origin: "http://localhost:8080"},
		{name: "bare ipv6 ignored", host: "localhost:8080", header: map[string]string{"X-Forwarded-Host": "::1"}, origin: "http://localhost:8080"},
		{name: "bracketed ipv6", host: "localhost:8080", header: map[string]string{"X-Forwarded-Host": "[2001:db8::1]:8443"}, origin: "http://[2001:db8::1]:8443"},
		{name: "empty forwarded host ignored", host: "localhost:8080", header: map[string]string{"X-Forwarded-Host": " "}, origin: "http://localhost:8080"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/sharing/rest/info", nil)
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 8080}))
			r.Host = c.host
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range c.header {
				r.Header.Set(k, v)
			}
			origin, base := api.RequestBase(r, c.context, []string{"portal.example.com"})
			if origin != c.origin || base != c.origin+c.context {
				t.Errorf("RequestBase = %q, %q; want %q, %q", origin, base, c.origin, c.origin+c.context)
			}
		})
	}
}

// Over real connections: an HTTPS server sees https and the port the client
// dialled; a request without a Host header (HTTP/1.0) gets the address the
// connection reached.
func TestRequestBaseOverConnections(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, base := api.RequestBase(r, "/portal", nil)
		fmt.Fprint(w, base)
	})
	hs := httptest.NewTLSServer(h)
	defer hs.Close()
	resp, err := hs.Client().Get(hs.URL + "/portal/sharing/rest/info")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := hs.URL + "/portal"; string(b) != want {
		t.Errorf("over TLS: base %q, want %q", b, want)
	}

	plain := httptest.NewServer(h)
	defer plain.Close()
	addr := strings.TrimPrefix(plain.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /portal/sharing/rest/info HTTP/1.0\r\n\r\n")
	raw, _ := io.ReadAll(conn)
	if want := "http://" + addr + "/portal"; !strings.HasSuffix(string(raw), "\r\n\r\n"+want) {
		t.Errorf("without Host: answer %q, want the body %q", raw, want)
	}
}
