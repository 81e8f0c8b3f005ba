package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
)

// rootCAs is the system's CA certificates and those of the PEM file.
func rootCAs(file string) (*x509.CertPool, error) {
	pemBytes, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		// The system's roots cannot be read: the file's alone.
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pemBytes) {
		return nil, fmt.Errorf("-ca-file %s: no PEM certificate in it", file)
	}
	return pool, nil
}

// httpClient is the suite's client: cfg's timeout, and over HTTPS the
// roots of -ca-file besides the system's.
func httpClient(cfg Config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs}
	}
	return &http.Client{Timeout: cfg.Timeout, Transport: &explainTrust{next: tr, caFile: cfg.CAFile}}
}

// explainTrust adds to a certificate the client does not trust what to do
// about it: the error alone (x509: certificate signed by unknown
// authority) does not say that -ca-file exists.
type explainTrust struct {
	next   http.RoundTripper
	caFile string
}

func (e *explainTrust) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := e.next.RoundTrip(req)
	if err == nil || !untrusted(err) {
		return resp, err
	}
	if e.caFile == "" {
		return nil, fmt.Errorf("%w (the portal's certificate is not trusted: give -ca-file, or CONFORMANCE_CA_FILE, with the PEM certificate of the CA that signed it)", err)
	}
	return nil, fmt.Errorf("%w (the portal's certificate is trusted neither by the system nor by -ca-file %s)", err, e.caFile)
}

// untrusted reports whether err is a certificate the client refused.
func untrusted(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname)
}
