// Package conformance checks that a portal, the reference server or a real
// deployment, implements the contract in openapi.yaml.
//
// Like testing/fstest.TestFS, it is one body that owns its subtests: call
// Run from a test with a Target, or run it outside go test with a Runner
// (the conformance command does). The same checks run in-process against
// the emulator and against a live base URL.
//
//	func TestPortal(t *testing.T) {
//		conformance.Run(t, conformance.Target{BaseURL: url, AdminToken: admin, MemberToken: member})
//	}
//
// # What it checks
//
// Every answer the suite receives, from every request of every check
// (set-up and clean-up included, and requests that are invalid on purpose),
// is validated against the contract with openapi3filter.ValidateResponse,
// strictly: the route must exist, the status must be HTTP 200 (for errors
// too: the contract's 404 and 413 are transport failures no check provokes)
// and the body must match the response schema. Two checks follow that
// kin-openapi does not make: an answer is the error envelope alone or a
// success answer holding what its schema's x-success-required lists, and
// every null is one OpenAPI 3.0.3 admits (nullable beside a type, as
// standard validators read it). The OAuth 2.0 pages (oauthAuthorize,
// oauthSignIn, oauthApproval), whose answers are HTML or redirects, must
// answer a status their operation declares, with a declared media type, and
// a redirect its Location. A path with servers of its own (oauthSignIn, at
// {context}/sharing/oauth2/signin, beside the REST root) is routed there,
// and an operation marked x-trailing-slash is found with and without the
// slash; a request at one of an operation's x-also-at paths (under
// {context}/sharing/) is that operation's, and so is a GET of a POST
// operation marked x-also-get. This happens in an http.RoundTripper, so nothing escapes it.
//
// The subtests are:
//
//   - examples: every named example pair of every operation is replayed and
//     its answer compared with the response example (below);
//   - discovery: the REST root's currentVersion is a REST version
//     x-rest-versions lists, or newer, the same at sharing/rest and
//     sharing/rest/ (and, for an enterprise release given in Target.Version,
//     that release's own; enterpriseVersion, when answered, the release of
//     currentVersion); info's owningSystemUrl and tokenServicesUrl start
//     with the address the suite reached the portal at (scheme, host and
//     context); portals/self read by the content owner is the
//     organization's, its user is community/self's (id, username, fullName,
//     orgId, role), and portalName, isPortal and portalMode agree (ArcGIS
//     Online, multitenant and no isPortal, or self-hosted) with each other
//     and with the deployment; anonymously it names no user;
//     hasMemberCategorySchema follows assignMemberCategorySchema and
//     deleteMemberCategorySchema; community/self and community/users/<name>
//     give a user the same id;
//   - reads: searchItems finds the private items the content owner adds,
//     as their owner (by a quoted title, by id, sorted, a page at a time,
//     counted) and as the administrator, never as an anonymous caller;
//     searchGroups finds only public groups for an anonymous caller, and
//     each group it finds reads the same through getGroup, with the
//     caller's membership; getUserTags counts the owner's tags;
//     community/self and portals/self carry the fields clients read. A
//     portal's search index may lag its writes (an ArcGIS portal indexes
//     items asynchronously): each search that must find what the suite has
//     just added, and the read of the owner's tags (which may be counted
//     from that index), is sent again, after 100 ms, then twice as long
//     each time, at most 2 s apart, until it finds it or Target.IndexWait
//     (default 30 s) has passed since the write, and its last answer is
//     judged as a single one would be. A portal that indexes at once, as
//     the emulator, is read once. A search that must find nothing (the
//     anonymous one) is sent once, after the others found the items;
//   - memberCategorySchema, moveItems, settings, auth: the rules of the
//     seeded operations, each on fixtures of its own, read back through the
//     contract's reads;
//   - moveItem: moveItem and moveItemFromFolder (the per-item move the
//     official clients use) on the suite's own items: to a folder, on from
//     one folder to another, to the root ("/"), an item already in the
//     destination (error 500), an unknown item (CONT_0001), an unknown
//     destination, and by the administrator; each answer is the documented
//     one and getItem and the content listings agree on where the item is;
//   - signIn: each sign-in as the official clients run it, the token then
//     used as that client sends it, on community/self: generateToken as the
//     ArcGIS API for Python sends it (referer=http, client=referer,
//     expiration=60) and as ArcGIS REST JS does (client=referer,
//     referer=@esri/arcgis-rest-js, expiration=20160; expires a number of
//     milliseconds); the ArcGIS API for Python's sign-in with a user name
//     and password (oauthAuthorize for its built-in application pythonapi,
//     redirecting to the portal's origin, oAuthInfo read from the sign-in
//     page as that client reads it, oauthSignIn, a 302 with the token in the
//     fragment, state echoed, expires_in 36000 for the 600 minutes asked) and
//     its out-of-band code (the approval page's title, the exchange without
//     a secret); with an application, the code flow with PKCE S256 to a
//     loopback redirect URI, as ArcGIS REST JS runs it (the redirect's
//     parameters read alike by both clients' decoders), the exchange,
//     refresh_token, exchange_refresh_token (the old refresh token then
//     refused), revocation (the revoked refresh token refused), and
//     client_credentials (portals/self with the application's token);
//   - wrongCredentials: a wrong password on the sign-in page (the page
//     again, with messages, no redirect) and on generateToken (error 400,
//     no token), a wrong client secret (invalid_client), a code exchanged
//     twice (invalid_grant), a redirect URI not registered (the 400 page
//     "Invalid redirect_uri"), an oauth_state no page gave (the 400 page);
//   - aliasPaths: the sign-ins at the other paths the contract gives them
//     (x-also-at), rooted at the portal's address, its context kept
//     (https://host/portal/sharing/rest has them at
//     https://host/portal/sharing/...), and the token endpoint's GET
//     (x-also-get): generateToken at sharing/generateToken; with an
//     application, the code flow with PKCE from the sign-in page at
//     sharing/oauth2/authorize, posted at sharing/rest/oauth2/signin,
//     exchanged and refreshed at sharing/oauth2/token, and a code exchanged
//     by GET at sharing/oauth2/token, refreshed by GET at oauth2/token; the
//     ArcGIS API for Python's out-of-band code through those paths, the
//     approval page at sharing/oauth2/approval, the exchange at
//     sharing/oauth2/token/. The validator holds each answer to its
//     operation's schema, and each token is used, then revoked;
//   - client: every operation called through package client; the validator
//     proves the server took what the client sent and answered per the
//     contract, and each check compares the values the client returned with
//     the raw body of the answer. The OAuth pages and moveItemFromFolder,
//     which the client does not call, are checked by signIn and moveItem.
//
// # Replaying the examples
//
// For each pair, the suite first puts organization-wide state in the state
// of x-example-fixtures (no settings, no member category schema), then
// creates the fixtures' folders and items for the content owner through the
// API, with titles made unique by a prefix ("conformance-<run>-<n> Roads").
// It then builds a substitution: the fixtures' ids become the ids created,
// the fixtures' portalId the target's, the user names jsmith and admin the
// target's content owner and administrator, and fixture titles (and the
// top-level title field of request examples) the unique titles. Ids are
// replaced wherever they occur, names and titles where they stand as whole
// words; the substitution applies to requests, response examples and
// x-raw-body alike.
//
// The x-setup pairs are replayed first, each compared with its own example.
// The request is sent as the contract's encoding says: a field whose
// encoding is application/json as one form field holding JSON, an id list
// comma-joined, f as the example gives it, and the token of the x-caller
// (admin, member, or none for anonymous). Path parameters the example does
// not give are the portal id and the content owner.
//
// The answer is compared with the response example after substitution:
//
//   - equal as JSON values: same keys, same values, arrays in order;
//   - where the example has x-subset, the answer holds at least the
//     example's fields, at any depth: fields the example does not show are
//     allowed in every object (a real portal answers portals/self with many
//     more), while arrays still have the example's elements, in order, each
//     compared the same way;
//   - x-ignore lists dotted paths (items.created) whose values are
//     generated; a path through an array applies to each of its elements.
//     The values at those paths are not compared, but the fields must be
//     present on both sides or absent on both;
//   - a token's ssl (the answers whose schema has a boolean ssl:
//     generateToken's, oauth2/token's) must be true when the request went
//     over HTTPS and false over HTTP, whatever the example shows: the
//     examples are written for one scheme, a portal answers by the one it
//     is reached over;
//   - where the example has x-raw-body, the raw body must equal it exactly;
//   - a content listing (getUserContent, getFolderContent) that also holds
//     content the suite did not create (a real user's own, or an emulator's
//     seeded demo content) is reduced to the suite's own entries, all pages
//     read, with total the number of items kept and nextStart -1; a listing
//     of only the suite's content is compared as it came;
//   - a listing's items and folders must come in creation order: created
//     never decreases, and entries created in different milliseconds come
//     in the order the suite created them; entries created in the same
//     millisecond may come in any order, so listings are compared with
//     their entries sorted by id once that order is checked;
//   - when the content owner is not the fixtures' member, a member object's
//     fullName and role are the owner's, as read when the suite starts.
//
// Everything created is deleted after each pair, and checked gone.
//
// The API has no operation that creates a group, so the groups the examples
// read (getGroup's publicGroup reads Open Data, a group of the emulator's
// demo organization) cannot be made like the fixtures' folders and items.
// Before a pair that reads one and must find it, the administrator reads the
// group, once a run: when the target's organization does not hold it (the
// error envelope of a group that does not exist, or a group of another
// organization) the pair is reported as not run, by name, with the reason.
// A group the target holds is replayed and judged as any pair: a portal
// holding it that answers the example's caller wrongly fails.
//
// # Who is who
//
// Without Target.MemberToken, pairs sent by the member run as the
// administrator on the administrator's own content; pairs that need a
// member without privileges (an expected 403) are reported as not run, with
// the reason, and counted as such, never as passed. A generateToken pair
// that must succeed needs a password: the example's own when the target uses
// the fixtures' user names (the emulator's demo organization), otherwise
// Target.Password when the example's user is Target.Username; else it is
// not run.
//
// The sign-in flows sign in with Target.Username and Target.Password, or on
// the emulator's demo organization (the fixtures' portalId) with the
// generateToken example's user and password; without either they are not
// run, by name. The OAuth examples and flows that need an application use
// Target.ClientID, Target.ClientSecret and Target.RedirectURI (default
// http://127.0.0.1/callback: a loopback address the suite never opens, for
// it reads redirects without following them), or on the demo organization
// the examples' own application (demo-app, its secret, its redirect URI).
// Without an application, client_credentials and the examples sending the
// application's secret need Target.ClientSecret, the code flows and the
// examples naming the application Target.ClientID; otherwise they are not
// run, by name. The ArcGIS API for Python's flows need no application: every
// portal has pythonapi.
//
// # Versions and deployments
//
// Target.Version and Target.Deployment leave out by name the example pairs
// written for other portals (x-introduced-in, x-deployments on the request
// example, or on one of its x-setup pairs). Empty, they are detected, as
// Detect does: the REST root's currentVersion mapped back through getRoot's
// x-rest-versions to the newest release whose REST version is currentVersion
// or older (newer than all, the newest listed), and portals/self's isPortal
// (true: enterprise; false: online). The run's log says what was found.
//
// The examples are written for the reference server's default deployment
// and version. When a target refuses a field the contract marks with
// x-introduced-in or x-deployments (portalConfigProperties, say) with a 400
// whose detail names the field and a version or deployment, as the contract
// prescribes, the checks that need that field are reported as not run,
// with the target's detail, rather than failed: when the target's release
// (given or detected) is older than the field, or its deployment is not
// among the field's. A target whose release and deployment take the field
// fails for refusing it.
//
// # Safety
//
// The suite can run against a real organization. It creates its own
// folders and items, with unique titles, and deletes only those. It reads
// the settings, the member category schema and the members' categories
// before anything else, and writes them back at the end, checking that they
// read as before: a schema that did not exist is deleted. Every token a
// sign-in flow obtains is revoked (oauthRevokeToken) when its test ends.
// It never locks an account: a run sends at most one wrong password per
// user name. The generateToken example that must be refused sends it for the
// content owner; the wrong-credential checks pick the user whose password
// the suite knows, then the administrator, then the content owner, and
// after a wrong password for the user whose password it knows sign that
// user in, which clears the count of failures; a check left without a user
// sends its wrong password for a user name no portal has, which is refused
// in the same words. Runs against one organization must not overlap.
package conformance
