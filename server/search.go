package server

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"
)

// The search syntax the portal documents, as far as its clients use it:
// terms, field:value and field:"a phrase", AND, OR, NOT and parentheses.
// Terms side by side must all match (the ArcGIS API for Python appends
// " accountid:<org>" to a query and means both). Fields such as id, owner,
// orgid, accountid and access match the whole value, ignoring case; the
// others (title, type, tags, description, a bare term) match words: the
// value's words, in order, among the field's, a word ending in * matching
// any word it starts.

// Query is a parsed search query; the zero Query matches everything.
type Query struct{ root node }

type node interface {
	match(f fieldFunc) bool
}

// fieldFunc gives the values of a field of what is searched ("" for a term
// without field: the fields a bare term searches).
type fieldFunc func(field string) []string

type andNode []node
type orNode []node
type notNode struct{ n node }
type termNode struct {
	field string // lower case; "" for a bare term
	value string
}

func (a andNode) match(f fieldFunc) bool {
	for _, n := range a {
		if !n.match(f) {
			return false
		}
	}
	return true
}

func (o orNode) match(f fieldFunc) bool {
	for _, n := range o {
		if n.match(f) {
			return true
		}
	}
	return false
}

func (n notNode) match(f fieldFunc) bool { return !n.n.match(f) }

// exactFields match a value as a whole.
var exactFields = map[string]bool{"id": true, "owner": true, "orgid": true, "accountid": true, "access": true, "username": true}

func (t termNode) match(f fieldFunc) bool {
	vals := f(t.field)
	if exactFields[t.field] {
		for _, v := range vals {
			if matchWhole(v, t.value) {
				return true
			}
		}
		return false
	}
	want := words(t.value)
	if len(want) == 0 {
		return true
	}
	for _, v := range vals {
		if containsWords(words(v), want) {
			return true
		}
	}
	return false
}

func matchWhole(v, want string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return len(v) >= len(p) && strings.EqualFold(v[:len(p)], p)
	}
	return strings.EqualFold(v, want)
}

// words splits s into lower-case words of letters and digits, keeping a
// trailing * (a prefix).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '*'
	})
}

// containsWords reports whether want occurs, word after word, in have.
func containsWords(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		ok := true
		for j, w := range want {
			if !wordMatch(have[i+j], w) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func wordMatch(have, want string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return strings.HasPrefix(have, p)
	}
	return have == want
}

func (q Query) match(f fieldFunc) bool { return q.root == nil || q.root.match(f) }

// errBadQuery is the answer to a query that does not parse.
func errBadQuery(detail string) *Error {
	return &Error{Code: 400, Message: "Invalid query.", Details: []string{"q: " + detail}}
}

// ParseQuery parses q; an empty q matches everything.
func ParseQuery(q string) (Query, error) {
	toks, err := tokenize(q)
	if err != nil {
		return Query{}, err
	}
	p := &parser{toks: toks}
	if len(p.toks) == 0 {
		return Query{}, nil
	}
	n, err := p.or()
	if err != nil {
		return Query{}, err
	}
	if p.i < len(p.toks) {
		return Query{}, errBadQuery("unexpected " + p.toks[p.i].text)
	}
	return Query{root: n}, nil
}

type token struct {
	text   string
	quoted bool
}

// tokenize splits q into words, quoted phrases and parentheses; a field
// name stays joined to its value (owner:"Jane Smith" is one token). A phrase
// must be closed: where it was meant to end is not for the server to guess.
func tokenize(q string) ([]token, error) {
	var out []token
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')':
			out = append(out, token{text: string(r)})
			i++
		default:
			var b strings.Builder
			quoted := false
			for i < len(rs) && !unicode.IsSpace(rs[i]) && rs[i] != '(' && rs[i] != ')' {
				if rs[i] == '"' {
					quoted = true
					i++
					for i < len(rs) && rs[i] != '"' {
						b.WriteRune(rs[i])
						i++
					}
					if i == len(rs) {
						return nil, errBadQuery("a quotation mark is not closed")
					}
					i++ // the closing quote
					continue
				}
				b.WriteRune(rs[i])
				i++
			}
			out = append(out, token{text: b.String(), quoted: quoted})
		}
	}
	return out, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peekOp(op string) bool {
	return p.i < len(p.toks) && !p.toks[p.i].quoted && p.toks[p.i].text == op
}

func (p *parser) or() (node, error) {
	n, err := p.and()
	if err != nil {
		return nil, err
	}
	ors := orNode{n}
	for p.peekOp("OR") {
		p.i++
		m, err := p.and()
		if err != nil {
			return nil, err
		}
		ors = append(ors, m)
	}
	if len(ors) == 1 {
		return n, nil
	}
	return ors, nil
}

func (p *parser) and() (node, error) {
	var ands andNode
	for p.i < len(p.toks) && !p.peekOp(")") && !p.peekOp("OR") {
		switch {
		case p.peekOp("AND"):
			p.i++
			continue
		case p.peekOp("NOT"):
			p.i++
			n, err := p.unary()
			if err != nil {
				return nil, err
			}
			ands = append(ands, notNode{n})
			continue
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		ands = append(ands, n)
	}
	switch len(ands) {
	case 0:
		return nil, p.noTerm()
	case 1:
		return ands[0], nil
	}
	return ands, nil
}

// noTerm is the error of a place where a term was due and none came, named
// by what came before it.
func (p *parser) noTerm() error {
	prev := ""
	if p.i > 0 && !p.toks[p.i-1].quoted {
		prev = p.toks[p.i-1].text
	}
	switch {
	case prev == "AND" || prev == "OR":
		return errBadQuery("an operator without a term")
	case prev == "(" && p.i == len(p.toks):
		return errBadQuery("a parenthesis is not closed")
	case prev == "(":
		return errBadQuery("empty parentheses")
	case p.peekOp(")"):
		return errBadQuery("unexpected )")
	}
	return errBadQuery("an operator without a term")
}

func (p *parser) unary() (node, error) {
	if p.i >= len(p.toks) {
		return nil, errBadQuery("the query ends with an operator")
	}
	t := p.toks[p.i]
	p.i++
	if !t.quoted && t.text == "(" {
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.peekOp(")") {
			return nil, errBadQuery("a parenthesis is not closed")
		}
		p.i++
		return n, nil
	}
	if !t.quoted && t.text == ")" {
		return nil, errBadQuery("unexpected )")
	}
	if f, v, ok := strings.Cut(t.text, ":"); ok && f != "" && !strings.ContainsAny(f, " ") {
		return termNode{field: strings.ToLower(f), value: v}, nil
	}
	return termNode{value: t.text}, nil
}

// sortKeys are the fields a search may sort by.
type sortKeys struct {
	title, owner, typ, id string
	created, modified     time.Time
}

// sortBy sorts hits by sortField (title, owner, type, created, modified;
// the first of a comma list), in sortOrder (asc or desc). Fields it does not
// keep (avgRating, numViews...) leave the creation order.
func sortBy[T any](hits []T, sortField, sortOrder string, keys func(T) sortKeys) {
	field, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(sortField)), ",")
	by := func(a, b sortKeys) int {
		switch strings.TrimSpace(field) {
		case "title":
			return cmp.Compare(strings.ToLower(a.title), strings.ToLower(b.title))
		case "owner":
			return cmp.Compare(a.owner, b.owner)
		case "type":
			return cmp.Compare(strings.ToLower(a.typ), strings.ToLower(b.typ))
		case "modified":
			return a.modified.Compare(b.modified)
		}
		return 0
	}
	desc := strings.EqualFold(strings.TrimSpace(sortOrder), "desc")
	slices.SortStableFunc(hits, func(x, y T) int {
		a, b := keys(x), keys(y)
		c := by(a, b)
		if c == 0 {
			c = cmp.Or(a.created.Compare(b.created), cmp.Compare(a.id, b.id))
			if field == "created" && desc {
				c = -c
			}
			return c
		}
		if desc {
			c = -c
		}
		return c
	})
}

// ItemView is an item as a search finds it, with its owner's organization.
type ItemView struct {
	Item
	OrgID string
}

// ItemPage is a page of an item search.
type ItemPage struct {
	Paging
	Items []ItemView
}

// canSeeItem reports whether p may find it, whose owner is of organization
// org: a public item anyone; an organization's item its users; a private
// item its owner and those who may view the organization's items.
func (p Principal) canSeeItem(it Item, org string) bool {
	switch it.Access {
	case AccessPublic:
		return true
	case AccessOrg:
		return p.userOf(org)
	}
	return p.User.Username == it.Owner || p.can(org, PrivViewItems)
}

// SearchItems answers search: the items matching q that p may see, sorted
// and paged.
func (s *Service) SearchItems(ctx context.Context, p Principal, q, sortField, sortOrder string, page Page) (ItemPage, error) {
	var out ItemPage
	expr, err := ParseQuery(q)
	if err != nil {
		return out, err
	}
	err = s.store.View(ctx, func(tx Tx) error {
		items, err := tx.AllItems(ctx, expr.only("owner"), expr.only("orgid", "accountid"))
		if err != nil {
			return err
		}
		orgs := map[string]string{} // owner -> organization
		var hits []ItemView
		for _, it := range items {
			org, known := orgs[it.Owner]
			if !known {
				u, err := tx.User(ctx, it.Owner)
				if err != nil && !errors.Is(err, ErrNotFound) {
					return err
				}
				org, orgs[it.Owner] = u.OrgID, u.OrgID
			}
			v := ItemView{Item: it, OrgID: org}
			if v.Access == "" {
				v.Access = AccessPrivate
			}
			if p.canSeeItem(v.Item, org) && expr.match(itemFields(v)) {
				hits = append(hits, v)
			}
		}
		sortBy(hits, sortField, sortOrder, func(v ItemView) sortKeys {
			return sortKeys{title: v.Title, owner: v.Owner, typ: v.Type, created: v.Created, modified: v.Modified, id: v.ID}
		})
		out.Paging, out.Items = cut(page, hits)
		return nil
	})
	return out, wrap("search items", err)
}

// only is the value of one of fields that every match must have, when the
// query's top level requires one (owner:jsmith AND ..., accountid:X as the
// ArcGIS API for Python appends it): the store then reads only the items
// that have it. "" otherwise.
func (q Query) only(fields ...string) string {
	var terms []node
	switch n := q.root.(type) {
	case termNode:
		terms = []node{n}
	case andNode:
		terms = n
	}
	for _, t := range terms {
		if tn, ok := t.(termNode); ok && slices.Contains(fields, tn.field) && tn.value != "" && !strings.HasSuffix(tn.value, "*") {
			return tn.value
		}
	}
	return ""
}

func itemFields(v ItemView) fieldFunc {
	return func(field string) []string {
		switch field {
		case "id":
			return []string{v.ID}
		case "title":
			return []string{v.Title}
		case "owner":
			return []string{v.Owner}
		case "type":
			return []string{v.Type}
		case "orgid", "accountid":
			return []string{v.OrgID}
		case "access":
			return []string{v.Access}
		case "tags":
			return v.Tags
		case "description":
			return []string{v.Description}
		case "":
			return append([]string{v.Title, v.Type, v.Description}, v.Tags...)
		}
		return nil
	}
}

// TagCount is a tag and how many of a user's items carry it.
type TagCount struct {
	Tag   string
	Count int
}

// MaxUserTags bounds UserTags' answer, as the portal bounds it (the
// contract's maxItems of UserTagsResponse.tags, pinned by a test).
const MaxUserTags = 1000

// UserTags lists the tags of username's items and groups that p may see (as
// SearchItems and SearchGroups decide), each with how many of them carry it,
// sorted alphabetically ignoring case: getUserTags, which the portal answers
// from "user owned items and groups". An item or group naming a tag twice
// counts once.
func (s *Service) UserTags(ctx context.Context, p Principal, username string) ([]TagCount, error) {
	var out []TagCount
	err := s.store.View(ctx, func(tx Tx) error {
		u, err := resolveUser(ctx, tx, username)
		if err != nil {
			return err
		}
		items, err := tx.AllItems(ctx, u.Username, "")
		if err != nil {
			return err
		}
		groups, err := tx.Groups(ctx)
		if err != nil {
			return err
		}
		counts := map[string]int{}
		count := func(tags []string) {
			seen := map[string]bool{}
			for _, t := range tags {
				if !seen[t] {
					seen[t] = true
					counts[t]++
				}
			}
		}
		for _, it := range items {
			if p.canSeeItem(it, u.OrgID) {
				count(it.Tags)
			}
		}
		for _, g := range groups {
			if g.Owner == u.Username && p.canSee(g) {
				count(g.Tags)
			}
		}
		out = make([]TagCount, 0, len(counts))
		for t, n := range counts {
			out = append(out, TagCount{Tag: t, Count: n})
		}
		slices.SortFunc(out, func(a, b TagCount) int {
			return cmp.Or(strings.Compare(strings.ToLower(a.Tag), strings.ToLower(b.Tag)), strings.Compare(a.Tag, b.Tag))
		})
		out = out[:min(len(out), MaxUserTags)]
		return nil
	})
	return out, wrap("list user tags", err)
}
