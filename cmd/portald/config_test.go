package main

import (
	"bytes"
	"errors"
	"flag"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	got, err := Load(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Addr: "127.0.0.1:8080", TLSCert: "portal-cert.pem", TLSKey: "portal-key.pem", Context: "", DB: "portal.db", Seed: "",
		Version: "11.5", Deployment: "enterprise", AllowRemoteAdmin: false, LogLevel: slog.LevelInfo,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, JournalSize: 10000, MemoryLimit: 100 << 20,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Load() = %+v\nwant %+v", got, want)
	}
}

var fromEnv = map[string]string{
	"PORTAL_ADDR":                "0.0.0.0:9000",
	"PORTAL_TLS":                 "true",
	"PORTAL_TLS_CERT":            "/etc/portal/cert.pem",
	"PORTAL_TLS_KEY":             "/etc/portal/key.pem",
	"PORTAL_CONTEXT":             "/portal",
	"PORTAL_DB":                  ":memory:",
	"PORTAL_SEED":                "seed.yaml",
	"PORTAL_VERSION":             "10.8",
	"PORTAL_DEPLOYMENT":          "online",
	"PORTAL_ALLOW_REMOTE_ADMIN":  "true",
	"PORTAL_ADMIN_TOKEN":         "s3cret",
	"PORTAL_ADMIN_HOSTS":         "portald, portal.test ,",
	"PORTAL_LOG_LEVEL":           "debug",
	"PORTAL_READ_HEADER_TIMEOUT": "3s",
	"PORTAL_IDLE_TIMEOUT":        "45s",
	"PORTAL_JOURNAL_SIZE":        "50",
	"PORTAL_MEMORY_LIMIT":        "off",
}

func TestLoadEnv(t *testing.T) {
	got, err := Load(nil, env(fromEnv))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Addr: "0.0.0.0:9000", TLS: true, TLSCert: "/etc/portal/cert.pem", TLSKey: "/etc/portal/key.pem", Context: "/portal", DB: ":memory:", Seed: "seed.yaml",
		Version: "10.8", Deployment: "online", AllowRemoteAdmin: true, AdminToken: "s3cret", AdminHosts: []string{"portald", "portal.test"}, LogLevel: slog.LevelDebug,
		ReadHeaderTimeout: 3 * time.Second, IdleTimeout: 45 * time.Second, JournalSize: 50, MemoryLimit: math.MaxInt64,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Load() = %+v\nwant %+v", got, want)
	}
}

func TestLoadFlagBeatsEnv(t *testing.T) {
	args := []string{
		"-addr", "127.0.0.1:0", "-tls=false", "-tls-cert", "c.pem", "-tls-key", "k.pem", "-context", "/arcgis", "-db", "other.db", "-seed", "mine.json",
		"-version", "11.1", "-deployment", "enterprise", "-allow-remote-admin=false", "-admin-token", "other", "-admin-hosts", "replica1", "-log-level", "warn",
		"-read-header-timeout", "1s", "-idle-timeout", "500ms", "-journal-size", "0",
		"-memory-limit", "1GiB",
	}
	got, err := Load(args, env(fromEnv))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Addr: "127.0.0.1:0", TLSCert: "c.pem", TLSKey: "k.pem", Context: "/arcgis", DB: "other.db", Seed: "mine.json",
		Version: "11.1", Deployment: "enterprise", AllowRemoteAdmin: false, AdminToken: "other", AdminHosts: []string{"replica1"}, LogLevel: slog.LevelWarn,
		ReadHeaderTimeout: time.Second, IdleTimeout: 500 * time.Millisecond, JournalSize: 0, MemoryLimit: 1 << 30,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Load() = %+v\nwant %+v", got, want)
	}

	// A flag also replaces an environment value that would not parse.
	e := env(map[string]string{"PORTAL_ALLOW_REMOTE_RESET": "maybe", "PORTAL_LOG_LEVEL": "loud", "PORTAL_VERSION": "eleven",
		"PORTAL_READ_HEADER_TIMEOUT": "soon", "PORTAL_IDLE_TIMEOUT": "-1s"})
	got, err = Load([]string{"-allow-remote-reset", "-log-level", "error", "-version", "11.0",
		"-read-header-timeout", "2s", "-idle-timeout", "1m"}, e)
	if err != nil {
		t.Fatal(err)
	}
	if !got.AllowRemoteAdmin || got.LogLevel != slog.LevelError || got.Version != "11.0" ||
		got.ReadHeaderTimeout != 2*time.Second || got.IdleTimeout != time.Minute {
		t.Fatalf("Load() = %+v", got)
	}
}

// -allow-remote-reset and PORTAL_ALLOW_REMOTE_RESET, the former names, still
// allow remote admin calls, and the flag given last wins.
func TestLoadAllowRemoteResetAlias(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want bool
	}{
		{"old flag", []string{"-allow-remote-reset"}, nil, true},
		{"old flag false", []string{"-allow-remote-reset=false"}, map[string]string{"PORTAL_ALLOW_REMOTE_ADMIN": "true"}, false},
		{"old env", nil, map[string]string{"PORTAL_ALLOW_REMOTE_RESET": "true"}, true},
		{"new env, old unset", nil, map[string]string{"PORTAL_ALLOW_REMOTE_ADMIN": "true"}, true},
		{"neither", nil, nil, false},
		{"new flag after old", []string{"-allow-remote-reset", "-allow-remote-admin=false"}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Load(c.args, env(c.env))
			if err != nil {
				t.Fatal(err)
			}
			if got.AllowRemoteAdmin != c.want {
				t.Errorf("AllowRemoteAdmin = %v, want %v", got.AllowRemoteAdmin, c.want)
			}
		})
	}
}

func TestLoadInvalid(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string // the error must contain it
	}{
		{"context without slash", []string{"-context", "portal"}, nil, "-context"},
		{"context ending with slash", []string{"-context", "/portal/"}, nil, "-context"},
		{"context slash only", nil, map[string]string{"PORTAL_CONTEXT": "/"}, "-context (PORTAL_CONTEXT)"},
		{"version without minor", []string{"-version", "11"}, nil, "-version"},
		{"version with patch", []string{"-version", "11.5.1"}, nil, "-version"},
		{"version not numeric", nil, map[string]string{"PORTAL_VERSION": "x.y"}, "-version (PORTAL_VERSION)"},
		{"version signed", []string{"-version", "+11.5"}, nil, "-version"},
		{"version with space", []string{"-version", " 11.5"}, nil, "-version"},
		{"deployment", []string{"-deployment", "cloud"}, nil, "-deployment"},
		{"deployment from env", nil, map[string]string{"PORTAL_DEPLOYMENT": "Online"}, "-deployment (PORTAL_DEPLOYMENT)"},
		{"addr", []string{"-addr", "8080"}, nil, "-addr"},
		{"tls env", nil, map[string]string{"PORTAL_TLS": "yes please"}, "-tls: PORTAL_TLS"},
		{"tls-cert empty", []string{"-tls", "-tls-cert", ""}, nil, "-tls-cert (PORTAL_TLS_CERT)"},
		{"tls-key empty", []string{"-tls-key", ""}, map[string]string{"PORTAL_TLS": "1"}, "-tls-key (PORTAL_TLS_KEY)"},
		{"tls one file for both", []string{"-tls", "-tls-cert", "both.pem", "-tls-key", "./both.pem"}, nil, "-tls-key (PORTAL_TLS_KEY)"},
		{"db empty", []string{"-db", ""}, nil, "-db"},
		{"allow-remote-admin flag", []string{"-allow-remote-admin=maybe"}, nil, "-allow-remote-admin"},
		{"allow-remote-admin env", nil, map[string]string{"PORTAL_ALLOW_REMOTE_ADMIN": "maybe"}, "-allow-remote-admin: PORTAL_ALLOW_REMOTE_ADMIN"},
		{"allow-remote-reset flag", []string{"-allow-remote-reset=maybe"}, nil, "-allow-remote-reset"},
		{"allow-remote-reset env", nil, map[string]string{"PORTAL_ALLOW_REMOTE_RESET": "maybe"}, "-allow-remote-reset: PORTAL_ALLOW_REMOTE_RESET"},
		{"log-level flag", []string{"-log-level", "loud"}, nil, "-log-level"},
		{"log-level env", nil, map[string]string{"PORTAL_LOG_LEVEL": "loud"}, "-log-level: PORTAL_LOG_LEVEL"},
		{"read-header-timeout flag", []string{"-read-header-timeout", "10"}, nil, "-read-header-timeout"},
		{"read-header-timeout env", nil, map[string]string{"PORTAL_READ_HEADER_TIMEOUT": "soon"}, "-read-header-timeout: PORTAL_READ_HEADER_TIMEOUT"},
		{"read-header-timeout zero", []string{"-read-header-timeout", "0s"}, nil, "-read-header-timeout (PORTAL_READ_HEADER_TIMEOUT)"},
		{"idle-timeout negative", nil, map[string]string{"PORTAL_IDLE_TIMEOUT": "-5s"}, "-idle-timeout (PORTAL_IDLE_TIMEOUT)"},
		{"idle-timeout flag", []string{"-idle-timeout", "forever"}, nil, "-idle-timeout"},
		{"memory-limit negative", []string{"-memory-limit", "-1MiB"}, nil, "-memory-limit"},
		{"memory-limit too small", nil, map[string]string{"PORTAL_MEMORY_LIMIT": "1MiB"}, "-memory-limit (PORTAL_MEMORY_LIMIT)"},
		{"memory-limit unit", []string{"-memory-limit", "100MB"}, nil, "-memory-limit"},
		{"memory-limit overflow", nil, map[string]string{"PORTAL_MEMORY_LIMIT": "9999999999TiB"}, "-memory-limit: PORTAL_MEMORY_LIMIT"},
		{"memory-limit empty unit only", []string{"-memory-limit", "MiB"}, nil, "-memory-limit"},
		{"unknown flag", []string{"-port", "80"}, nil, "-port"},
		{"positional argument", []string{"serve"}, nil, `unexpected argument "serve"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(c.args, env(c.env))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load(%q) = %v, want an error containing %q", c.args, err, c.want)
			}
		})
	}
}

func TestLoadReportsEveryInvalidFlag(t *testing.T) {
	_, err := Load([]string{"-context", "x", "-version", "1", "-deployment", "y"}, env(nil))
	for _, f := range []string{"-context", "-version", "-deployment"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("Load() = %v, want it to name %s", err, f)
		}
	}
}

func TestHelp(t *testing.T) {
	if _, err := Load([]string{"-h"}, env(nil)); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Load(-h) = %v, want flag.ErrHelp", err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-help"}, env(nil), &out, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range settings {
		if !strings.Contains(out.String(), "-"+s.flag) || !strings.Contains(out.String(), s.env) {
			t.Errorf("usage does not list -%s and %s:\n%s", s.flag, s.env, out.String())
		}
	}
}
