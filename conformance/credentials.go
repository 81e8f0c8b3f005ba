package conformance

import "fmt"

// Credentials beyond the tokens: a user's password for the sign-in flows,
// an application's for OAuth 2.0, and the wrong passwords the suite sends.

// demoOrg reports whether the target is the emulator's demo organization,
// the one the examples are written against: its users' passwords and its
// application's secret are the examples' own.
func (s *suite) demoOrg() bool { return s.portalID == s.fix.portalID }

// fixtureApp is the application of the examples: the client id and secret
// of the oauthToken example that issues an application's token.
func (s *suite) fixtureApp() (id, secret string) {
	o := s.ops["oauthToken"]
	if o == nil {
		return "", ""
	}
	for _, p := range o.pairs {
		if p.body["grant_type"] == "client_credentials" && p.wantsError() == 0 {
			id, _ = p.body["client_id"].(string)
			secret, _ = p.body["client_secret"].(string)
			return id, secret
		}
	}
	return "", ""
}

// app returns the application to use on the target: Target.ClientID and
// ClientSecret when given, else on the demo organization the examples'
// own. why says what is missing when there is no client id; secret may be
// "" (Target.ClientID without Target.ClientSecret).
func (s *suite) app() (id, secret, why string) {
	switch {
	case s.target.ClientID != "":
		return s.target.ClientID, s.target.ClientSecret, ""
	case s.demoOrg():
		id, secret = s.fixtureApp()
		if id != "" {
			return id, secret, ""
		}
	}
	return "", "", "needs an application registered in the organization (Target.ClientID, Target.ClientSecret)"
}

// appSecret is app's secret, or why there is none.
func (s *suite) appSecret() (id, secret, why string) {
	id, secret, why = s.app()
	if why == "" && secret == "" {
		why = "needs the application's secret (Target.ClientSecret)"
	}
	return id, secret, why
}

// needApp returns app's client id, or ends t as not run.
func (s *suite) needApp(t TB) string {
	t.Helper()
	id, _, why := s.app()
	if why != "" {
		s.notRun(t, "%s", why)
	}
	return id
}

// needAppSecret returns app's client id and secret, or ends t as not run.
func (s *suite) needAppSecret(t TB) (id, secret string) {
	t.Helper()
	id, secret, why := s.appSecret()
	if why != "" {
		s.notRun(t, "%s", why)
	}
	return id, secret
}

// redirectURI is the application's redirect URI the code flows use.
func (s *suite) redirectURI() string {
	if s.target.RedirectURI != "" {
		return s.target.RedirectURI
	}
	return defaultRedirectURI
}

// signInUser returns a user name and password the sign-in flows may use:
// Target.Username and Target.Password, else on the demo organization those
// of the generateToken example that issues a token.
func (s *suite) signInUser() (user, password string, ok bool) {
	if s.target.Username != "" && s.target.Password != "" {
		return s.target.Username, s.target.Password, true
	}
	if p := s.pairs["generateToken/issued"]; p != nil && s.demoOrg() {
		user, _ = p.body["username"].(string)
		password, _ = p.body["password"].(string)
		return user, password, user != "" && password != ""
	}
	return "", "", false
}

// needSignIn fails t as not run when no user's password is known.
func (s *suite) needSignIn(t TB) (user, password string) {
	t.Helper()
	user, password, ok := s.signInUser()
	if !ok {
		s.notRun(t, "needs a user's password (Target.Username and Target.Password)")
	}
	return user, password
}

// spendWrongPassword reports whether a wrong password may be sent for user
// in this run, and counts it: at most one per user name, so that the suite
// never locks an account, however often it runs.
func (s *suite) spendWrongPassword(user string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrongSent[user] {
		return false
	}
	if s.wrongSent == nil {
		s.wrongSent = map[string]bool{}
	}
	s.wrongSent[user] = true
	return true
}

// wrongPasswordSent reports whether user was sent a wrong password in this
// run.
func (s *suite) wrongPasswordSent(user string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wrongSent[user]
}

// wrongPasswordUser returns the user name to send a wrong password for: a
// user of the organization not yet sent one in this run (the user whose
// password is known first, so that a good sign-in can follow), else a user
// name no portal has, which it refuses in the same words.
func (s *suite) wrongPasswordUser() (user string, real bool) {
	known, _, _ := s.signInUser()
	for _, u := range []string{known, s.adminUser, s.owner} {
		if u != "" && s.spendWrongPassword(u) {
			return u, true
		}
	}
	return fmt.Sprintf("conformance-%s-nobody", s.runID), false
}

// wrongPassword is the password the suite sends when it must be refused.
func (s *suite) wrongPassword() string { return "conformance-wrong-password-" + s.runID }
