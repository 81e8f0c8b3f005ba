// Package tlscert gives portald and portaltest the certificate they serve
// HTTPS with: a certificate chain and key read from PEM files, or a pair
// made on the spot for a local server, which clients trust through one
// file (REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, curl --cacert).
//
// A generated pair has the shape mkcert gives: a leaf for the server's
// names, signed by a CA certificate made for it alone, whose key is thrown
// away at once. The certificate file holds the leaf and then the CA: the
// chain the server sends, and the file clients trust. Trusting a
// self-signed leaf instead works with most clients, but Chromium refuses
// one imported as an authority (ERR_CERT_INVALID), and a CA whose key were
// kept on disk could vouch for any name; this CA can only ever have signed
// the one leaf.
package tlscert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Validity is how long a generated certificate is valid. TLS checks it
// against the real clock, never the emulator's.
const Validity = 365 * 24 * time.Hour

// backdate makes a generated certificate valid a little before it was made,
// for a client whose clock is slightly behind.
const backdate = time.Hour

// Hosts returns the names a generated certificate must be valid for when
// the server listens on addr (host:port): localhost, 127.0.0.1 and ::1,
// and addr's host when it is a name or an IP address other than the
// unspecified one (0.0.0.0, ::), which no client dials.
func Hosts(addr string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return hosts
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsUnspecified() {
			return hosts
		}
		host = ip.String()
	}
	if !slices.Contains(hosts, host) {
		hosts = append(hosts, host)
	}
	return hosts
}

// Generate makes a certificate valid for hosts (names and IP addresses)
// from now for Validity, and its ECDSA P-256 key, as PEM: certPEM holds the
// leaf and then the CA certificate that signed it.
func Generate(hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	if len(hosts) == 0 {
		return nil, nil, errors.New("tlscert: no host to make a certificate for")
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	notBefore, notAfter := now.Add(-backdate), now.Add(Validity)
	caSerial, err := serial()
	if err != nil {
		return nil, nil, err
	}
	ca := &x509.Certificate{
		SerialNumber: caSerial,
		// A name of its own per pair: trust stores that hold several
		// (an NSS database) tell them apart.
		Subject:   pkix.Name{Organization: []string{"portald"}, CommonName: "portald local CA " + now.UTC().Format(time.RFC3339)},
		NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return nil, nil, err
	}
	leafSerial, err := serial()
	if err != nil {
		return nil, nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: leafSerial,
		Subject:      pkix.Name{Organization: []string{"portald"}, CommonName: hosts[0]},
		NotBefore:    notBefore, NotAfter: notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER})
	certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})...)
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}

// serial is a random 128-bit serial number, as RFC 5280 asks of CAs.
func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}

// Parse checks a certificate chain and its key, as PEM, at now: each
// certificate parses, the key is the first certificate's, and none is
// expired or not yet valid. certName and keyName name where they came from
// in its errors.
func Parse(certPEM, keyPEM []byte, certName, keyName string, now time.Time) (tls.Certificate, error) {
	var out tls.Certificate
	var chain []*x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return out, fmt.Errorf("certificate %d in %s does not parse: %v", len(chain)+1, certName, err)
		}
		chain = append(chain, c)
		out.Certificate = append(out.Certificate, b.Bytes)
	}
	if len(chain) == 0 {
		return out, fmt.Errorf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", certName)
	}
	key, err := parseKey(keyPEM, keyName)
	if err != nil {
		return out, err
	}
	pub, ok := chain[0].PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(key.Public()) {
		return out, fmt.Errorf("the key in %s is not the key of the certificate in %s (its first certificate)", keyName, certName)
	}
	for i, c := range chain {
		which := "the certificate"
		if len(chain) > 1 {
			which = fmt.Sprintf("certificate %d", i+1)
		}
		switch {
		case now.After(c.NotAfter):
			return out, fmt.Errorf("%s in %s expired on %s", which, certName, c.NotAfter.UTC().Format(time.RFC3339))
		case now.Before(c.NotBefore):
			return out, fmt.Errorf("%s in %s is not valid before %s", which, certName, c.NotBefore.UTC().Format(time.RFC3339))
		}
	}
	out.PrivateKey, out.Leaf = key, chain[0]
	return out, nil
}

// parseKey reads the first private key of keyPEM: PKCS #8, SEC 1 (EC) or
// PKCS #1 (RSA).
func parseKey(keyPEM []byte, keyName string) (crypto.Signer, error) {
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, fmt.Errorf("%s holds no PEM private key (-----BEGIN PRIVATE KEY-----)", keyName)
		}
		var k any
		var err error
		switch b.Type {
		case "PRIVATE KEY":
			k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			k, err = x509.ParseECPrivateKey(b.Bytes)
		case "RSA PRIVATE KEY":
			k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("the private key in %s does not parse: %v", keyName, err)
		}
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("the private key in %s is of a kind TLS cannot use (%T)", keyName, k)
		}
		return s, nil
	}
}

// Pool holds the certificates of certPEM: what a client given the
// certificate file as its CA file trusts.
func Pool(certPEM []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		return nil, errors.New("tlscert: no PEM certificate to trust")
	}
	return pool, nil
}

// ClientConfig is the TLS configuration of a client that trusts the
// certificates of certFile, as one given it as its CA file does.
func ClientConfig(certFile string) (*tls.Config, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, err
	}
	pool, err := Pool(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// Load reads a certificate chain and its key from PEM files and checks them
// at now (see Parse).
func Load(certFile, keyFile string, now time.Time) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("reading the certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("reading the key: %w", err)
	}
	return Parse(certPEM, keyPEM, certFile, keyFile, now)
}

// LoadOrGenerate loads certFile and keyFile when both exist. When neither
// does, it generates a pair for hosts and writes it there, the key readable
// by its owner only, and reports generated. One without the other is an
// error naming both.
//
// Each file is written whole under a temporary name and then renamed, so
// that no reader sees half a file; and the check and the writing happen
// under a lock on the key's directory, so that replicas starting together
// with the same paths write one pair, the others loading it.
func LoadOrGenerate(certFile, keyFile string, hosts []string, now time.Time) (cert tls.Certificate, generated bool, err error) {
	if filepath.Clean(certFile) == filepath.Clean(keyFile) {
		return cert, false, fmt.Errorf("the certificate and the key must be two files, not both %s", certFile)
	}
	unlock, err := lockDir(filepath.Dir(keyFile))
	if err != nil {
		return cert, false, fmt.Errorf("locking the directory of %s: %w", keyFile, err)
	}
	defer unlock()
	certThere, err := exists(certFile)
	if err != nil {
		return cert, false, err
	}
	keyThere, err := exists(keyFile)
	if err != nil {
		return cert, false, err
	}
	switch {
	case certThere && keyThere:
		cert, err = Load(certFile, keyFile, now)
		return cert, false, err
	case certThere:
		return cert, false, fmt.Errorf("%s exists but the key %s does not: give both files, or remove %s to have a new pair generated", certFile, keyFile, certFile)
	case keyThere:
		return cert, false, fmt.Errorf("%s exists but the certificate %s does not: give both files, or remove %s to have a new pair generated", keyFile, certFile, keyFile)
	}
	certPEM, keyPEM, err := Generate(hosts, now)
	if err != nil {
		return cert, false, err
	}
	// The key first: a crash between the two leaves the key alone, which
	// the next start reports rather than serving a certificate without it.
	if err := writeFile(keyFile, keyPEM, 0o600); err != nil {
		return cert, false, err
	}
	if err := writeFile(certFile, certPEM, 0o644); err != nil {
		return cert, false, err
	}
	cert, err = Parse(certPEM, keyPEM, certFile, keyFile, now)
	return cert, err == nil, err
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// writeFile writes data to a new file beside path and renames it to path.
func writeFile(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
