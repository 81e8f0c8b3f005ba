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
// standard validators read it). This happens in an http.RoundTripper, so
// nothing escapes it.
//
// Target.Version and Target.Deployment, when given, leave out by name the
// example pairs written for other portals (x-introduced-in, x-deployments on
// the request example, or on one of its x-setup pairs).
//
// The subtests are:
//
//   - examples: every named example pair of every operation is replayed and
//     its answer compared with the response example (below);
//   - memberCategorySchema, moveItems, settings, auth: the rules of the
//     seeded operations, each on fixtures of its own, read back through the
//     contract's reads;
//   - client: every operation called through package client; the validator
//     proves the server took what the client sent and answered per the
//     contract, and each check compares the values the client returned with
//     the raw body of the answer.
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
//   - x-ignore lists dotted paths (items.created) whose values are
//     generated; a path through an array applies to each of its elements.
//     The values at those paths are not compared, but the fields must be
//     present on both sides or absent on both;
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
// # Versions and deployments
//
// The examples are written for the reference server's default deployment
// and version. When a target refuses a field the contract marks with
// x-introduced-in or x-deployments (portalConfigProperties, say) with a 400
// whose detail names the field and a version or deployment, as the contract
// prescribes, the checks that need that field are reported as not run,
// with the target's detail, rather than failed.
//
// # Safety
//
// The suite can run against a real organization. It creates its own
// folders and items, with unique titles, and deletes only those. It reads
// the settings, the member category schema and the members' categories
// before anything else, and writes them back at the end, checking that they
// read as before: a schema that did not exist is deleted. Runs against one
// organization must not overlap.
package conformance
