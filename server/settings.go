package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// SettingsUpdate is settings/update's input; nil means the parameter was not
// sent. The notices and the banner arrive decoded (the transport decoded and
// validated each document once); portalConfigProperties is the JSON
// document sent, merged key by key with the stored one as JSON.
type SettingsUpdate struct {
	AnonymousAccessNotice     *AccessNotice
	AuthenticatedAccessNotice *AccessNotice
	InformationalBanner       *Banner
	PortalConfigProperties    json.RawMessage
	// ClearEmptyFields turns a notice or banner sent as {} into a cleared setting.
	ClearEmptyFields bool
}

// UpdateSettings applies settings/update: each notice or banner given
// replaces the stored one wholly, portalConfigProperties merges key by key
// (null removes a key), and nothing is stored when any part is invalid.
func (s *Service) UpdateSettings(ctx context.Context, p Principal, portalID string, u SettingsUpdate) error {
	// The documents are checked before the transaction: none of
	// it needs the store, and write transactions run one at a time.
	var problems []string
	var anon, auth *AccessNotice
	var banner *Banner
	var patch map[string]json.RawMessage
	lim := &s.gates.Limits
	if u.AnonymousAccessNotice != nil {
		anon = checkNotice("anonymousAccessNotice", *u.AnonymousAccessNotice, u.ClearEmptyFields, lim, &problems)
	}
	if u.AuthenticatedAccessNotice != nil {
		auth = checkNotice("authenticatedAccessNotice", *u.AuthenticatedAccessNotice, u.ClearEmptyFields, lim, &problems)
	}
	if u.InformationalBanner != nil {
		banner = checkBanner(*u.InformationalBanner, u.ClearEmptyFields, lim, &problems)
	}
	if u.PortalConfigProperties != nil {
		patch = s.checkPortalConfig(u.PortalConfigProperties, &problems)
	}
	var next Settings
	var parts SettingsParts
	if u.AnonymousAccessNotice != nil {
		next.AnonymousAccessNotice, parts = anon, parts|PartAnonymousAccessNotice
	}
	if u.AuthenticatedAccessNotice != nil {
		next.AuthenticatedAccessNotice, parts = auth, parts|PartAuthenticatedAccessNotice
	}
	if u.InformationalBanner != nil {
		next.InformationalBanner, parts = banner, parts|PartInformationalBanner
	}
	return wrap("update settings", s.update(ctx, p, func(tx Tx) error {
		orgID, err := writableOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		// Who may call comes before what was sent, as in the portal.
		if err := p.require(orgID, PrivManageSecurity); err != nil {
			return err
		}
		if len(problems) > 0 {
			return Invalid(problems...)
		}
		next, parts := next, parts
		if u.PortalConfigProperties != nil {
			// Merged key by key, so the stored properties are read first.
			cur, err := tx.Settings(ctx, orgID, PartPortalConfig)
			if err != nil {
				return err
			}
			next.PortalConfig, parts = mergePortalConfig(cur.PortalConfig, patch), parts|PartPortalConfig
			if err := checkStoredConfig(cur.PortalConfig, next.PortalConfig, lim); err != nil {
				return err
			}
		}
		err = tx.PatchSettings(ctx, orgID, next, parts)
		if errors.Is(err, ErrNotFound) {
			return notFound(msgPortalNotFound)
		}
		return err
	}))
}

// Settings returns the settings read. Anonymous callers, and members of
// another organization, do not see portalConfigProperties, which are then
// not even read; on a deployment without them they are never shown.
func (s *Service) Settings(ctx context.Context, p Principal, portalID string) (Settings, error) {
	var out Settings
	err := s.store.View(ctx, func(tx Tx) error {
		org, err := resolveOrg(ctx, tx, p, portalID)
		if err != nil {
			return err
		}
		// What anonymous visitors may read, members of other organizations may
		// too; the configuration properties are for the organization's own.
		public := p.Anonymous() || p.User.OrgID != org.ID
		shown := !public && s.gates.Check("portalConfigProperties") == ""
		parts := AllSettingsParts
		if !shown {
			parts &^= PartPortalConfig
		}
		out, err = tx.Settings(ctx, org.ID, parts)
		if err != nil {
			return err
		}
		if !shown {
			out.PortalConfig = nil
		} else if out.PortalConfig == nil {
			out.PortalConfig = map[string]json.RawMessage{}
		}
		return nil
	})
	return out, wrap("read settings", err)
}

// checkNotice applies the rules of a notice sent as field; it returns what
// to store (nil: cleared).
func checkNotice(field string, n AccessNotice, clearEmpty bool, lim *Limits, problems *[]string) *AccessNotice {
	if clearEmpty && n == (AccessNotice{}) {
		return nil
	}
	if n.Buttons != nil && !slices.Contains(lim.NoticeButtons, *n.Buttons) {
		*problems = append(*problems, fmt.Sprintf(`%s.buttons: %q is not %s`, field, *n.Buttons, strings.Join(lim.NoticeButtons, " or ")))
	}
	if n.Enabled != nil && *n.Enabled {
		requireWhenEnabled(field, "notice", lim.NoticeRequired, problems, named{"title", n.Title}, named{"text", n.Text}, named{"buttons", n.Buttons})
	}
	return &n
}

// checkBanner applies the rules of the banner; it returns what to store
// (nil: cleared).
func checkBanner(b Banner, clearEmpty bool, lim *Limits, problems *[]string) *Banner {
	const field = "informationalBanner"
	if clearEmpty && b == (Banner{}) {
		return nil
	}
	if b.Enabled != nil && *b.Enabled {
		requireWhenEnabled(field, "banner", lim.BannerRequired, problems, named{"text", b.Text}, named{"bgColor", b.BgColor}, named{"fontColor", b.FontColor})
	}
	for _, c := range [...]named{{"bgColor", b.BgColor}, {"fontColor", b.FontColor}} {
		if c.value != nil && *c.value != "" && !validColor(*c.value) {
			*problems = append(*problems, fmt.Sprintf("%s.%s: %q is not a CSS color name or a #rgb, #rgba, #rrggbb or #rrggbbaa value", field, c.name, *c.value))
		}
	}
	return &b
}

// named is a field of a notice or banner and its value.
type named struct {
	name  string
	value *string
}

// requireWhenEnabled reports each empty field among the required ones (the
// contract's x-required-when-enabled).
func requireWhenEnabled(field, what string, required []string, problems *[]string, fields ...named) {
	for _, f := range fields {
		if !slices.Contains(required, f.name) {
			continue
		}
		if f.value == nil || strings.TrimSpace(*f.value) == "" {
			*problems = append(*problems, fmt.Sprintf("%s.%s: required when the %s is enabled", field, f.name, what))
		}
	}
}

// portalConfigRules checks the value of each named advanced configuration
// property; a nil rule means any JSON scalar or array (unnamed properties).
var portalConfigRules = map[string]func(json.RawMessage, *Limits) string{
	"extentService":                   checkURL,
	"gcsBasemapService":               checkURL,
	"surveyUrl":                       checkURL,
	"iotViewerUrl":                    checkURL,
	"footerLinks":                     checkFooterLinks,
	"httpsDomains":                    checkHostList,
	"tokenExpiration":                 checkPositiveInt,
	"longTokenExpiration":             checkPositiveInt,
	"searchHostedEnabled":             checkBool,
	"portalHostedConfigEnabled":       checkBool,
	"portalLivingAtlasConfigEnabled":  checkBool,
	"restrictOrganizationPageToAdmin": checkBool,
	"sceneViewerEnabled":              checkBool,
	"webAppBuilderEnabled":            checkBool,
	"configurePortalHostedEnv":        checkHostName,
	"showInAppLauncher":               checkString,
}

// checkPortalConfig checks a portalConfigProperties document and returns
// it as a patch: each key's compacted value, nil for a key to remove.
func (s *Service) checkPortalConfig(raw json.RawMessage, problems *[]string) map[string]json.RawMessage {
	const field = "portalConfigProperties"
	if reason := s.gates.Check(field); reason != "" {
		*problems = append(*problems, reason)
		return nil
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		*problems = append(*problems, field+": must be a JSON object")
		return nil
	}
	patch := make(map[string]json.RawMessage, len(in))
	for _, k := range slices.Sorted(maps.Keys(in)) { // sorted, so details come in a stable order
		v, path := in[k], field+"."+k
		if reason := s.gates.Check(path); reason != "" {
			*problems = append(*problems, reason)
			continue
		}
		if k == "" {
			*problems = append(*problems, field+": a property name is empty")
			continue
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			patch[k] = nil
			continue
		}
		check, named := portalConfigRules[k]
		if !named {
			check = checkScalarOrArray
		}
		if reason := check(v, &s.gates.Limits); reason != "" {
			*problems = append(*problems, path+": "+reason)
			continue
		}
		var buf bytes.Buffer
		_ = json.Compact(&buf, v)
		patch[k] = buf.Bytes()
	}
	return patch
}

// checkStoredConfig bounds what portalConfigProperties store: at most
// PortalConfigMaxKeys keys and PortalConfigMaxBytes bytes of JSON in all. A
// configuration stored before the bounds may shrink without meeting them.
func checkStoredConfig(cur, next map[string]json.RawMessage, lim *Limits) error {
	const field = "portalConfigProperties"
	if n := len(next); n > lim.PortalConfigMaxKeys && n > len(cur) {
		return Invalid(fmt.Sprintf("%s: %d properties would be stored, the maximum is %d", field, n, lim.PortalConfigMaxKeys))
	}
	if n := configBytes(next); n > lim.PortalConfigMaxBytes && n > configBytes(cur) {
		return Invalid(fmt.Sprintf("%s: %d bytes of JSON would be stored, the maximum is %d", field, n, lim.PortalConfigMaxBytes))
	}
	return nil
}

// configBytes is the length of the properties as one JSON object.
func configBytes(m map[string]json.RawMessage) int {
	n := 2 // {}
	for k, v := range m {
		n += jsonStringLen(k) + 1 + len(v) + 1 // "key":value,
	}
	if len(m) > 0 {
		n-- // no comma after the last
	}
	return n
}

// jsonStringLen is the length of s as encoding/json writes it, quotes and
// escapes included.
func jsonStringLen(s string) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
			n += 6 // \u00XX
		case r == utf8.RuneError:
			n += 6 // \ufffd, for invalid bytes too
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// mergePortalConfig applies a checked patch key by key: nil removes a key.
func mergePortalConfig(cur, patch map[string]json.RawMessage) map[string]json.RawMessage {
	out := maps.Clone(cur)
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

func checkURL(v json.RawMessage, lim *Limits) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "must be a string holding an absolute http or https URL"
	}
	if !validURL(s) {
		return fmt.Sprintf("%q is not an absolute http or https URL", s)
	}
	return ""
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

// validHost reports whether s is a host name as the contract's httpsDomains
// items describe one.
func validHost(s string, lim *Limits) bool {
	return utf8.RuneCountInString(s) <= lim.HostNameMaxLength && lim.HostName.MatchString(s)
}

func checkHostName(v json.RawMessage, lim *Limits) string {
	var s string
	if json.Unmarshal(v, &s) != nil || !validHost(s, lim) {
		return "must be a host name"
	}
	return ""
}

func checkHostList(v json.RawMessage, lim *Limits) string {
	var list []string
	if json.Unmarshal(v, &list) != nil {
		return "must be an array of host names"
	}
	for i, h := range list {
		if !validHost(h, lim) {
			return fmt.Sprintf("[%d] %q is not a host name", i, h)
		}
	}
	return ""
}

func checkPositiveInt(v json.RawMessage, lim *Limits) string {
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return "must be a positive integer (minutes)"
	}
	i, err := n.Int64()
	if err != nil || i < 1 || i > 1<<31-1 {
		return fmt.Sprintf("%s is not a positive integer (minutes)", n)
	}
	return ""
}

func checkBool(v json.RawMessage, lim *Limits) string {
	var b bool
	if json.Unmarshal(v, &b) != nil {
		return "must be true or false"
	}
	return ""
}

func checkString(v json.RawMessage, lim *Limits) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "must be a string"
	}
	return ""
}

func checkScalarOrArray(v json.RawMessage, lim *Limits) string {
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '{' {
		return "must be a JSON scalar or array"
	}
	return ""
}

func checkFooterLinks(v json.RawMessage, lim *Limits) string {
	var links []map[string]json.RawMessage
	if json.Unmarshal(v, &links) != nil {
		return "must be an array of {title, url} or {title, email, type} objects"
	}
	for i, l := range links {
		str := func(k string) (string, bool) {
			var s string
			raw, ok := l[k]
			return s, ok && json.Unmarshal(raw, &s) == nil
		}
		for k := range l {
			if k != "title" && k != "url" && k != "email" && k != "type" {
				return fmt.Sprintf("[%d].%s: unknown property", i, k)
			}
		}
		if t, ok := str("title"); !ok || strings.TrimSpace(t) == "" {
			return fmt.Sprintf("[%d].title: required", i)
		}
		u, hasURL := str("url")
		e, hasEmail := str("email")
		typ, hasType := str("type")
		switch {
		case hasURL && !hasEmail && !hasType:
			if !validURL(u) {
				return fmt.Sprintf("[%d].url: %q is not an absolute http or https URL", i, u)
			}
		case hasEmail && hasType && !hasURL:
			if at := strings.IndexByte(e, '@'); at <= 0 || at == len(e)-1 || strings.ContainsAny(e, " \t") {
				return fmt.Sprintf("[%d].email: %q is not an email address", i, e)
			}
			if !slices.Contains(lim.FooterLinkTypes, typ) {
				return fmt.Sprintf("[%d].type: %q is not %s", i, typ, strings.Join(lim.FooterLinkTypes, " or "))
			}
		default:
			return fmt.Sprintf("[%d]: needs either url, or email and type", i)
		}
	}
	return ""
}
