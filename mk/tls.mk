# HTTPS: Chromium trusts the certificate portald generates, imported as an
# authority into an NSS database (curl, Python, Node.js and Go are checked
# by the Go tests of internal/e2e, which make test-go runs).

.PHONY: test-tls-browser tools-nss

TEST_TARGETS += test-tls-browser

CERTUTIL := /usr/bin/certutil

tools-nss:
	@test -x $(CERTUTIL) || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libnss3-tools; }

## test-tls-browser: headless Chromium loads a page of portald -tls, trusting its generated certificate
test-tls-browser: tools-chromium tools-nss
	PORTAL_TEST_BROWSER=1 GO=$(GO) mk/go-test-ran.sh ./internal/e2e/ TestChromiumTrustsTheGeneratedCertificate
