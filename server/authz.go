package server

import "slices"

// Principal is who sends a request. A zero Principal is anonymous.
type Principal struct {
	User       User
	Privileges []string // of the user's custom role; none for built-in roles
	// App, for an application's token (client_credentials), is the
	// application: it acts for no user, so every check that needs a user
	// or a privilege refuses it, and it reads what anonymous callers may.
	App *App
	// token is the one Authenticate resolved: the writes the principal
	// makes confirm it in their transaction (Service.update).
	token string
}

// Anonymous reports whether no token was given.
func (p Principal) Anonymous() bool { return p.User.Username == "" && p.App == nil }

// OrgID is the organization of the principal's user or application; "" for
// anonymous callers.
func (p Principal) OrgID() string {
	if p.App != nil {
		return p.App.OrgID
	}
	return p.User.OrgID
}

// Name names the caller for the journal and logs: the user name, or the
// application's client id after "app:"; "" for anonymous callers.
func (p Principal) Name() string {
	if p.App != nil {
		return "app:" + p.App.ClientID
	}
	return p.User.Username
}

// IsAdmin reports whether p is a default administrator.
func (p Principal) IsAdmin() bool { return p.User.Role == RoleAdmin }

// userOf reports whether p is a user (not an application, not anonymous)
// of organization orgID.
func (p Principal) userOf(orgID string) bool { return p.User.Username != "" && p.User.OrgID == orgID }

// can reports whether p may do what priv grants, in its own organization:
// default administrators may do everything, custom roles what they list.
func (p Principal) can(orgID string, privs ...string) bool {
	if !p.userOf(orgID) {
		return false
	}
	if p.IsAdmin() {
		return true
	}
	for _, priv := range privs {
		if slices.Contains(p.Privileges, priv) {
			return true
		}
	}
	return false
}

// requireMember is the check of the reads open to any member of orgID.
func (p Principal) requireMember(orgID string) error {
	if p.Anonymous() {
		return clone(ErrTokenRequired)
	}
	if p.User.OrgID != orgID {
		return clone(ErrForbidden)
	}
	return nil
}

// require is the check of an administrative operation in orgID.
func (p Principal) require(orgID string, privs ...string) error {
	if p.Anonymous() {
		return clone(ErrTokenRequired)
	}
	if !p.can(orgID, privs...) {
		return clone(ErrForbidden)
	}
	return nil
}

// requireOwnerOr is the check of an operation on owner's content: the owner
// itself, or in the owner's organization someone holding one of privs.
func (p Principal) requireOwnerOr(owner User, privs ...string) error {
	if p.Anonymous() {
		return clone(ErrTokenRequired)
	}
	if p.User.Username == owner.Username || p.can(owner.OrgID, privs...) {
		return nil
	}
	return clone(ErrForbidden)
}
