package deploy

import (
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Networks    map[string]struct {
			IPv4Address string `yaml:"ipv4_address"`
		} `yaml:"networks"`
	} `yaml:"services"`
}

// readCompose reads compose.yaml, its anchors and merge keys resolved.
func readCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

// portaldServices are the services of compose.yaml that run the image.
func portaldServices(c composeFile) []string {
	var names []string
	for name, s := range c.Services {
		if strings.Contains(s.Image, "/portald:") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// compose.yaml cannot be run here (its images come from registries): this
// checks that its parts fit together.
func TestComposeFile(t *testing.T) {
	c := readCompose(t)
	replicas := portaldServices(c)
	if len(replicas) != 2 {
		t.Fatalf("portald services %v, want two replicas", replicas)
	}
	pg := c.Services["postgres"].Environment
	for _, name := range replicas {
		dsn, err := url.Parse(c.Services[name].Environment["PORTAL_DB"])
		if err != nil || dsn.Scheme != "postgres" {
			t.Fatalf("%s: PORTAL_DB %q is not a postgres:// URL", name, c.Services[name].Environment["PORTAL_DB"])
		}
		pw, _ := dsn.User.Password()
		if dsn.Hostname() != "postgres" || dsn.User.Username() != pg["POSTGRES_USER"] || pw != pg["POSTGRES_PASSWORD"] ||
			dsn.Path != "/"+pg["POSTGRES_DB"] {
			t.Errorf("%s: PORTAL_DB %s does not name the postgres service's database, user and password %v", name, dsn.Redacted(), pg)
		}
		// The image listens on 8080 (PORTAL_ADDR in the Dockerfile).
		if ports := c.Services[name].Ports; len(ports) != 1 || !strings.HasSuffix(ports[0], ":8080") {
			t.Errorf("%s: ports %v, want one published from 8080", name, ports)
		}
	}

	// The load balancer sends to exactly those replicas on port 8080.
	lb := c.Services["lb"]
	if !slices.ContainsFunc(lb.Volumes, func(v string) bool { return strings.HasPrefix(v, "./nginx.conf:") }) {
		t.Fatalf("lb does not mount nginx.conf: %v", lb.Volumes)
	}
	conf, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	var upstream []string
	for _, m := range regexp.MustCompile(`(?m)^\s*server\s+([^:\s]+):8080\b`).FindAllStringSubmatch(string(conf), -1) {
		upstream = append(upstream, m[1])
	}
	slices.Sort(upstream)
	if !slices.Equal(upstream, replicas) {
		t.Errorf("nginx.conf balances over %v, want the replicas %v on 8080", upstream, replicas)
	}

	// The replicas believe the load balancer's forwarding headers, and its
	// alone: it has a fixed address, which they trust, and it sends them.
	lbAddr := lb.Networks["default"].IPv4Address
	for _, name := range replicas {
		if got := c.Services[name].Environment["PORTAL_TRUSTED_PROXIES"]; lbAddr == "" || got != lbAddr+"/32" {
			t.Errorf("%s: PORTAL_TRUSTED_PROXIES %q, want the load balancer's address %q/32", name, got, lbAddr)
		}
	}
	for _, h := range []string{"X-Forwarded-Host $http_host", "X-Forwarded-Proto $scheme", "X-Forwarded-For $proxy_add_x_forwarded_for"} {
		if !strings.Contains(string(conf), "proxy_set_header "+h+";") {
			t.Errorf("nginx.conf does not send %s", h)
		}
	}
}
