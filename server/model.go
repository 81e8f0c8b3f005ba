// Package server is the reference implementation of the organization portal
// API: the domain model, the business rules of every operation (one file per
// rule family), authorization, and the Store interface the rules run on. It
// knows nothing of HTTP or of the generated types; server/api adapts it to the
// generated strict-server interface and server/sqlstore persists it.
package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Built-in roles (the portal's names). Any other role name is a custom role
// of the member's organization.
const (
	RoleAdmin     = "org_admin"
	RolePublisher = "org_publisher"
	RoleUser      = "org_user"
)

// Privileges that grant the administrative operations to a custom role.
const (
	PrivManageSecurity             = "portal:admin:manageSecurity"
	PrivUpdateMemberCategorySchema = "portal:admin:updateMemberCategorySchema"
	PrivUpdateItems                = "portal:admin:updateItems"
	PrivDeleteItems                = "portal:admin:deleteItems"
	PrivViewItems                  = "portal:admin:viewItems"
	PrivUpdateUsers                = "portal:admin:updateUsers"
)

// Organization is one portal organization.
type Organization struct {
	ID   string
	Name string
}

// CustomRole is a role of one organization with a list of privileges.
type CustomRole struct {
	OrgID      string
	ID         string
	Privileges []string
}

// User is a member of exactly one organization.
type User struct {
	Username     string
	OrgID        string
	FullName     string
	Role         string // RoleAdmin, RolePublisher, RoleUser or a CustomRole.ID of OrgID
	PasswordHash string // see HashPassword
	Categories   []string
	Created      time.Time
	Email        string // "" when none is known
}

// UserID is the id of the user named username: 32 lowercase hex digits, the
// shape of the portal's user ids, the same for the user's whole life (user
// names are unique across organizations and never change), so it needs no
// storage and survives resets and snapshots.
func UserID(username string) string {
	sum := sha256.Sum256([]byte("user:" + username))
	return hex.EncodeToString(sum[:16])
}

// builtinPrivileges are the privileges the built-in roles grant, as the
// user resource lists them; a custom role grants the ones it lists.
var builtinPrivileges = map[string][]string{
	RoleUser: {"portal:user:createItem", "portal:user:joinGroup", "portal:user:shareToGroup", "portal:user:viewOrgItems", "portal:user:viewOrgUsers"},
	RolePublisher: {"portal:publisher:publishFeatures", "portal:publisher:publishTiles",
		"portal:user:createItem", "portal:user:joinGroup", "portal:user:shareToGroup", "portal:user:viewOrgItems", "portal:user:viewOrgUsers"},
	RoleAdmin: {PrivDeleteItems, PrivManageSecurity, PrivUpdateItems, PrivUpdateMemberCategorySchema, PrivUpdateUsers, PrivViewItems,
		"portal:admin:viewUsers", "portal:publisher:publishFeatures", "portal:publisher:publishTiles",
		"portal:user:createItem", "portal:user:joinGroup", "portal:user:shareToGroup", "portal:user:viewOrgItems", "portal:user:viewOrgUsers"},
}

// App is an application registered for OAuth 2.0 sign-in in an
// organization. A confidential application has a secret (stored as
// HashPassword stores passwords); a public one does not.
type App struct {
	ClientID     string
	OrgID        string
	SecretHash   string // "" for a public client
	RedirectURIs []string
}

// OAuthCode is an authorization code: issued by a sign-in for a client and a
// redirect URI, exchanged once for tokens before it expires.
type OAuthCode struct {
	Code            string
	ClientID        string
	Username        string
	RedirectURI     string
	Challenge       string // PKCE code_challenge; "" when none
	ChallengeMethod string // "S256" or "plain"
	RefreshMinutes  int    // the refresh token's lifetime; -1 never expires
	Expires         time.Time
}

// RefreshToken is an OAuth 2.0 refresh token of a user for a client. A zero
// Expires never expires.
type RefreshToken struct {
	Token    string
	ClientID string
	Username string
	Minutes  int // its lifetime, kept by exchange_refresh_token; -1 never expires
	Expires  time.Time
	Grant    string // the authorization code's grant it belongs to (see Token)
}

// AppToken is an application's token (client_credentials): it acts for no
// user.
type AppToken struct {
	Token    string
	ClientID string
	Expires  time.Time
}

// Token is a bearer token. A zero Expires never expires (static tokens from
// the seed file).
type Token struct {
	Token    string
	Username string
	Expires  time.Time
	// Grant, for the tokens an authorization code led to (exchanged for
	// it, or refreshed from the refresh token it gave), is the code's
	// grant, which revoking a replayed code revokes (Tx.RevokeGrant); ""
	// for other tokens.
	Grant string
}

// Folder is one of a user's folders. The root folder is not stored: an item
// at the root has an empty FolderID.
type Folder struct {
	ID      string
	Owner   string
	Title   string
	Created time.Time
}

// Item is a content item owned by one user.
type Item struct {
	ID          string
	Owner       string
	FolderID    string // "" for the root folder
	Title       string
	Type        string
	Description string
	Tags        []string
	Access      string // AccessPrivate, AccessOrg or AccessPublic; "" reads as private
	Created     time.Time
	Modified    time.Time
}

// AccessNotice is a terms-of-service prompt. Fields are pointers so that what
// a client sent is stored and read back as sent.
type AccessNotice struct {
	Title   *string `json:"title,omitempty"`
	Text    *string `json:"text,omitempty"`
	Buttons *string `json:"buttons,omitempty"`
	Enabled *bool   `json:"enabled,omitempty"`
}

// Banner is the informational banner.
type Banner struct {
	Text      *string `json:"text,omitempty"`
	BgColor   *string `json:"bgColor,omitempty"`
	FontColor *string `json:"fontColor,omitempty"`
	Enabled   *bool   `json:"enabled,omitempty"`
}

// Settings are an organization's settings. A nil notice or banner was never
// set (or was cleared). PortalConfig holds each advanced configuration
// property as the JSON value last stored for it.
type Settings struct {
	AnonymousAccessNotice     *AccessNotice
	AuthenticatedAccessNotice *AccessNotice
	InformationalBanner       *Banner
	PortalConfig              map[string]json.RawMessage
}

// SettingsParts names parts of Settings, for Tx.PatchSettings.
type SettingsParts uint8

const (
	PartAnonymousAccessNotice SettingsParts = 1 << iota
	PartAuthenticatedAccessNotice
	PartInformationalBanner
	PartPortalConfig

	// AllSettingsParts replaces the settings wholly.
	AllSettingsParts = PartAnonymousAccessNotice | PartAuthenticatedAccessNotice | PartInformationalBanner | PartPortalConfig
)

// CategoryNode is one node of the member category schema.
type CategoryNode struct {
	Title      string         `json:"title"`
	Categories []CategoryNode `json:"categories,omitempty"`
}
