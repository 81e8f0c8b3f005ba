package server

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// ErrNotFound is returned by a Tx lookup that finds nothing.
var ErrNotFound = errors.New("not found")

// ErrTokenRemoved is returned by an Update whose Tx.ConfirmToken found the
// token gone, whatever fn returned: the transaction changed nothing.
var ErrTokenRemoved = errors.New("token removed")

// ErrNestedUpdate is returned by an Update made with a request's context
// (WithRequest) while another Update made with it is under way: one made by
// the other's fn, for a request's calls come one after another. Update is
// not reentrant: the inner one could wait for ever for the outer one's
// transaction, which waits for fn (SQLite's writes run one at a time).
var ErrNestedUpdate = errors.New("server: Update called inside another Update's fn")

type requestKey struct{}

// WithRequest marks ctx as one request's, whose calls to the store, made
// with it or with a context derived from it, come one after another: the
// store refuses an Update made with it while another made with it is under
// way (ErrNestedUpdate), rather than let the two wait for each other.
func WithRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestKey{}, new(atomic.Bool))
}

// EnterUpdate is what a Store's Update calls first: ErrNestedUpdate when
// ctx is a request's with an Update under way (WithRequest), else nil, and
// then LeaveUpdate once the Update ends.
func EnterUpdate(ctx context.Context) error {
	if b, ok := ctx.Value(requestKey{}).(*atomic.Bool); ok && !b.CompareAndSwap(false, true) {
		return ErrNestedUpdate
	}
	return nil
}

// LeaveUpdate ends what EnterUpdate began.
func LeaveUpdate(ctx context.Context) {
	if b, ok := ctx.Value(requestKey{}).(*atomic.Bool); ok {
		b.Store(false)
	}
}

// Store persists the portal. Every request runs its reads and writes in one
// transaction, so a rejected or failed request changes nothing, and
// concurrent requests behave as if run one after another (serializable).
// Implementations: server/sqlstore (SQLite, PostgreSQL) and the store test
// suite in server/storetest that every implementation passes.
//
// How an implementation makes Updates serializable is its own affair, with
// one rule for the callers: in an Update, the Tx reads that decide a write
// (see Tx) lock what they read until the transaction ends, and callers take
// the locks in this order, which keeps transactions from waiting on each
// other in a circle: an organization's settings, its category schema
// (written), its users (by user name), one folder, then items (by id). A
// View sees one committed state.
type Store interface {
	// Update runs fn in a read-write transaction and commits it when fn
	// returns nil. It retries fn on serialization conflicts, so fn must have
	// no effect outside tx. fn runs on the caller's goroutine: a panic in
	// it goes on in the caller with its stack. It is not reentrant: fn must
	// not make another Update (nor a Reset); one made with a request's
	// context is refused (ErrNestedUpdate, see EnterUpdate).
	Update(ctx context.Context, fn func(tx Tx) error) error
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(tx Tx) error) error
	// Ping reports whether the store answers and can commit: a store that
	// cannot keep what it commits (its file deleted or replaced, its disk
	// full) reports an error, as its writes do.
	Ping(ctx context.Context) error
	// Reset deletes everything and, when seed is not nil, runs seed, in one
	// transaction: no other transaction sees the store empty, and none
	// runs astride it (a write that confirmed its token, see
	// Tx.ConfirmToken, commits before the reset or finds the token gone).
	Reset(ctx context.Context, seed func(tx Tx) error) error
	// Dump writes every row in a stable order, for comparing states.
	Dump(ctx context.Context, w io.Writer) error
	// Close releases the store.
	Close() error
}

// TokenWatch is implemented by a Store that several processes may share: it
// tells each of them when tokens may have been removed, so that a cache of
// tokens stays true across processes.
type TokenWatch interface {
	// WatchTokens has forget called whenever tokens may have been removed
	// through any process sharing the store; Reset returns only once every
	// watching process has called its forget.
	WatchTokens(forget func())
	// TokensWatched reports whether removals are received now. While not,
	// tokens must be read from the store on every use.
	TokensWatched() bool
}

// Tx is the view of the store inside one transaction. Lookups return
// ErrNotFound (possibly wrapped) when nothing matches. Put methods insert or
// replace by primary key. Lists are ordered as documented.
//
// In an Update these reads lock what they find against the other Updates
// until the transaction ends: User, Users, Settings (the organization's
// settings, found or not), Folder, Item, Items and ItemsByID (the last two
// lock in id order).
// The other reads do not lock: what they read changes only by a Reset, which
// waits for every transaction under way.
type Tx interface {
	// Empty reports whether the store holds no organization.
	Empty(ctx context.Context) (bool, error)

	Organization(ctx context.Context, id string) (Organization, error)
	PutOrganization(ctx context.Context, o Organization) error

	Role(ctx context.Context, orgID, id string) (CustomRole, error)
	// Roles lists an organization's custom roles ordered by id.
	Roles(ctx context.Context, orgID string) ([]CustomRole, error)
	PutRole(ctx context.Context, r CustomRole) error

	// User looks a user up by name; user names are unique across organizations.
	User(ctx context.Context, username string) (User, error)
	// Users lists an organization's members ordered by user name.
	Users(ctx context.Context, orgID string) ([]User, error)
	PutUser(ctx context.Context, u User) error

	Token(ctx context.Context, token string) (Token, error)
	// ConfirmToken makes an Update depend on token, resolved before the
	// transaction began: it must be the transaction's first call. A token
	// that a Reset removed meanwhile makes the Update return
	// ErrTokenRemoved, having changed nothing; a token confirmed holds until
	// the transaction ends, against Reset. It may report the removal
	// itself or, on a store that sends it with the next statement, let the
	// Update report it.
	ConfirmToken(ctx context.Context, token string) error
	// Principal returns a token with its user and, when the user's
	// organization defines a role named as the user's role, that role's
	// privileges, in one lookup. ErrNotFound when the token or its user
	// does not exist.
	Principal(ctx context.Context, token string) (Token, Principal, error)
	PutToken(ctx context.Context, t Token) error
	// DeleteToken removes a token (revoked); ErrNotFound when there is none.
	DeleteToken(ctx context.Context, token string) error

	// App looks an application up by client id.
	App(ctx context.Context, clientID string) (App, error)
	PutApp(ctx context.Context, a App) error
	PutOAuthCode(ctx context.Context, c OAuthCode) error
	// SigningKey returns the store's secret named name, storing fresh as it
	// when it has none: every process on the store signs and checks with
	// the same one (sign-in states, the tokens of a code).
	SigningKey(ctx context.Context, name, fresh string) (string, error)
	// TakeOAuthCode returns an authorization code and deletes it, so that of
	// concurrent exchanges of one code only one finds it.
	TakeOAuthCode(ctx context.Context, code string) (OAuthCode, error)
	PutRefreshToken(ctx context.Context, t RefreshToken) error
	// RevokeGrant removes the tokens and refresh tokens of grant (see
	// Token.Grant), reporting whether there were any.
	RevokeGrant(ctx context.Context, grant string) (bool, error)
	RefreshToken(ctx context.Context, token string) (RefreshToken, error)
	// TakeRefreshToken returns a refresh token and deletes it, as
	// TakeOAuthCode does a code.
	TakeRefreshToken(ctx context.Context, token string) (RefreshToken, error)
	PutAppToken(ctx context.Context, t AppToken) error
	// AppToken returns an application's token with its application.
	AppToken(ctx context.Context, token string) (AppToken, App, error)
	// DeleteAppToken removes an application's token; ErrNotFound when there
	// is none.
	DeleteAppToken(ctx context.Context, token string) error

	// Settings returns the parts of the organization's settings that parts
	// names (the others are zero, and not read); an organization with none
	// stored yields zero Settings and no error.
	Settings(ctx context.Context, orgID string, parts SettingsParts) (Settings, error)
	// PatchSettings replaces the parts of the organization's settings that
	// parts names with those of s and keeps the others, without reading
	// them: settings/update is the write the portal makes most. It returns
	// ErrNotFound when the organization does not exist. Zero settings read
	// the same as none.
	PatchSettings(ctx context.Context, orgID string, s Settings, parts SettingsParts) error

	// CategorySchema returns the organization's schema; nil when none.
	CategorySchema(ctx context.Context, orgID string) ([]CategoryNode, error)
	// PutCategorySchema stores the schema; nil deletes it.
	PutCategorySchema(ctx context.Context, orgID string, nodes []CategoryNode) error

	Folder(ctx context.Context, owner, id string) (Folder, error)
	// Folders lists a user's folders ordered by creation time, then id.
	Folders(ctx context.Context, owner string) ([]Folder, error)
	PutFolder(ctx context.Context, f Folder) error
	DeleteFolder(ctx context.Context, owner, id string) error

	Item(ctx context.Context, id string) (Item, error)
	// Items lists a user's items in one folder ("" for the root) ordered by
	// creation time, then id.
	Items(ctx context.Context, owner, folderID string) ([]Item, error)
	PutItem(ctx context.Context, it Item) error
	DeleteItem(ctx context.Context, id string) error

	// The batch methods serve moveItems and deleteItems, whose batches of up to
	// 1,000 ids would otherwise cost a statement per id.

	// ItemsByID returns the items among ids that exist, keyed by id.
	ItemsByID(ctx context.Context, ids []string) (map[string]Item, error)
	// SetItemsFolder moves the items ids (all must exist) to folderID ("" for
	// the root), stamping them modified.
	SetItemsFolder(ctx context.Context, ids []string, folderID string, modified time.Time) error
	// DeleteItems deletes the items ids (all must exist).
	DeleteItems(ctx context.Context, ids []string) error

	// AllItems lists every item ordered by creation time, then id; only
	// owner's when owner is not "" (its name matched ignoring case), only
	// those of the members of organization org when org is not "".
	// Searches read it.
	AllItems(ctx context.Context, owner, org string) ([]Item, error)

	// Group looks a group up by id.
	Group(ctx context.Context, id string) (Group, error)
	// Groups lists every group ordered by creation time, then id.
	Groups(ctx context.Context) ([]Group, error)
	// PutGroup inserts or replaces a group and its members (g.Members
	// replaces those stored).
	PutGroup(ctx context.Context, g Group) error
	// UserGroups lists the groups username is a member of, ordered by
	// creation time, then id, with their members.
	UserGroups(ctx context.Context, username string) ([]Group, error)
}
